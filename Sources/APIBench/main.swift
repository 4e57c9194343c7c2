import Foundation
import MicroHTTP
import Presentation
import PresentationAPI

// api-bench: what the API layer costs per request in process, without sockets or
// libmicrohttpd: the part of a request that is ours alone (docs/performance.md).
//
//   api-bench [REQUESTS] [ROUNDS] [WORKLOAD...]   (defaults: 300000 3, every workload)
//
// Creates 1,000 sessions of a 3-screen stack and a sheet, then times GET tree, push/pop
// answered with the whole tree, and push/pop with `Prefer: return=minimal`, REQUESTS
// requests a round, each request built afresh as the HTTP layer builds it. Prints the best
// round of each in ns per request, one JSON object per line. Run it pinned to one core
// (`taskset -c 0`): the figures are one thread's time. Naming workloads (tree, pushpop,
// pushpop-minimal) runs only those, for a profiler's view of one: `valgrind --tool=callgrind
// api-bench 20000 1 pushpop` counts its instructions, which vary far less than its time.

let arguments = CommandLine.arguments.dropFirst()
let counts = arguments.compactMap { Int($0) }
let only = Set(arguments.filter { Int($0) == nil })
let bench = APIBench(requests: max(counts.first ?? 300_000, 2_000), rounds: max(counts.dropFirst().first ?? 3, 1))
let unknown = only.subtracting(APIBench.workloads)
guard unknown.isEmpty else {
    FileHandle.standardError.write(Data("api-bench: no workload \(unknown.sorted()); there are \(APIBench.workloads)\n".utf8))
    exit(64)
}
for (workload, nanoseconds) in bench.run(only: only.isEmpty ? Set(APIBench.workloads) : only) {
    print(
        #"{"workload":"\#(workload)","ns_per_request":\#(Int(nanoseconds.rounded())),"#
            + #""requests":\#(bench.requests),"rounds":\#(bench.rounds)}"#)
}
