import Foundation
import Testing

/// A file-size limit (`ulimit -f`, systemd's `LimitFSIZE=`) reached by the database: the
/// kernel refuses the write past it and, unless the process ignores it, sends SIGXFSZ, whose
/// default ends the process. The server died so (status 153, no log line) on the change that
/// grew the log past the limit, instead of refusing that change as it refuses any other it
/// cannot write. It now ignores SIGXFSZ: the write fails (EFBIG), SQLite reports an I/O error,
/// and the change gets 503 `storage_failed` and is not made.
@Suite("File size limit")
struct FileSizeLimitTests {
    @Test("A database that reaches ulimit -f refuses the change and goes on serving; a restart reads every acknowledged one")
    func changePastFileSizeLimitIsRefused() throws {
        let data = DataDirectory()
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path],
            through: ["prlimit", "--fsize=300000"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        let session = try client.createSession()
        var acknowledged = 1
        var refused: ClientResponse?
        // About 2 KB of log a change: the log reaches the limit within 150.
        for step in 0..<150 where refused == nil {
            let pushed = try? client.post(
                "push", to: session, json: ["screen": "s\(step)", "params": ["pad": String(repeating: "x", count: 2_000)]])
            guard let pushed else {
                // The connection closed unanswered: long enough for a process that died to be reaped.
                Thread.sleep(forTimeInterval: 0.5)
                let state = server.process.isRunning ? "runs" : "ended with \(server.process.terminationStatus)"
                Issue.record("no answer to change \(step + 2); the server \(state)")
                return
            }
            if pushed.status == 200 { acknowledged += 1 } else { refused = pushed }
        }
        let refusal = try #require(refused, "150 changes of 2 KB all fitted under a 300,000-byte limit")
        refusal.expectProblem(503, "storage_failed")
        #expect(server.process.isRunning)
        _ = try client.get(session.route(), token: session.token).expectSession(revision: acknowledged)
        _ = try server.terminate()

        let (restarted, port) = try data.startServer()
        defer { _ = try? restarted.terminate() }
        _ = try HTTPConnection(port: port).get(session.route(), token: session.token).expectSession(revision: acknowledged)
    }
}
