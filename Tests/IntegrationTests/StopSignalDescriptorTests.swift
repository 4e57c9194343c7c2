import Foundation
import Testing

/// The stop signals reached the server through signalfds, one a signal, that libdispatch
/// opened some time after each signal source was resumed, saying nothing when it could not.
/// With descriptors short (`ulimit -n 12`, or clients taking them all as a restarted server
/// begins to accept) SIGTERM's source got none, and SIGTERM, blocked for that source to take,
/// stayed pending for ever: the server logged `listening` and ignored every SIGTERM until
/// SIGKILL. They are now taken in `sigwait` (StopSignals), which needs no descriptor.
@Suite("Stop signals with few descriptors")
struct StopSignalDescriptorTests {
    @Test("At every descriptor limit the server either refuses to start or stops on SIGTERM")
    func stopsOrRefusesAtEveryLimit() throws {
        var listened = 0
        for limit in 10...20 {
            let server = try ServerProcess.start(
                arguments: ["--port", "0", "--threads", "2"], accessLog: false, through: ["prlimit", "--nofile=\(limit)"])
            defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
            let deadline = Date().addingTimeInterval(ServerProcess.patience)
            while server.process.isRunning, !server.output.contains(#""event":"listening""#), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            guard server.output.contains(#""event":"listening""#) else {
                // Too few to start: a start failure, said and ended, never a hang.
                #expect(try server.waitForExit() == 1, "nofile \(limit): \(server.output)")
                continue
            }
            listened += 1
            let status = try? server.terminate()
            #expect(status == 0, "nofile \(limit): SIGTERM did not stop the server cleanly: \(server.output)")
        }
        #expect(listened > 0, "no limit from 10 to 20 let the server start")
    }
}
