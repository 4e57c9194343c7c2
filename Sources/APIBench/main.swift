import Foundation
import MicroHTTP
import Presentation
import PresentationAPI

// api-bench: what the API layer costs per request in process, without sockets or
// libmicrohttpd: the part of a request that is ours alone (docs/performance.md).
//
//   api-bench [REQUESTS] [ROUNDS]   (defaults: 300000 3)
//
// Creates 1,000 sessions of a 3-screen stack and a sheet, then times GET tree, push/pop
// answered with the whole tree, and push/pop with `Prefer: return=minimal`, REQUESTS
// requests a round, each request built afresh as the HTTP layer builds it. Prints the best
// round of each in ns per request, one JSON object per line. Run it pinned to one core
// (`taskset -c 0`): the figures are one thread's time.

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let bench = APIBench(requests: max(arguments.first ?? 300_000, 2_000), rounds: max(arguments.dropFirst().first ?? 3, 1))
for (workload, nanoseconds) in bench.run() {
    print(
        #"{"workload":"\#(workload)","ns_per_request":\#(Int(nanoseconds.rounded())),"#
            + #""requests":\#(bench.requests),"rounds":\#(bench.rounds)}"#)
}
