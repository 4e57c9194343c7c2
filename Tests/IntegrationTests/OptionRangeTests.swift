import Foundation
import Testing

/// Option values at the edges of what docs/api.md and `--help` allow: the edge itself starts
/// the server, one past it is refused at start (exit 2), never quietly served.
@Suite("Option ranges")
struct OptionRangeTests {
    /// What became of the binary started with `arguments`: its exit status and stderr when it
    /// stopped by itself, nil once it listens (it is then stopped). Never waits past
    /// `ServerProcess.patience`, whichever it does.
    private static func refusal(_ arguments: [String]) throws -> (status: Int32, errors: String)? {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--storage", "memory"] + arguments, accessLog: false)
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while server.process.isRunning, !server.output.contains(#""event":"listening""#), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard server.process.isRunning else {
            server.process.waitUntilExit()
            // stderr is drained by a thread of its own: give it the moment it may still need.
            let drained = Date().addingTimeInterval(ServerProcess.patience)
            while server.errorOutput.isEmpty, Date() < drained { Thread.sleep(forTimeInterval: 0.02) }
            return (server.process.terminationStatus, server.errorOutput)
        }
        _ = try server.terminate()
        return nil
    }

    @Test(
        "One past an option's range is refused at start, naming the option",
        arguments: [
            (["--events-kept", "0"], "--events-kept"),
            (["--max-session-ttl", "60", "--session-ttl", "61"], "--session-ttl"),
        ])
    func pastTheEdge(arguments: [String], flag: String) throws {
        let refused = try #require(try Self.refusal(arguments), "\(arguments) started the server")
        #expect(refused.status == 2)
        #expect(refused.errors.contains(flag), "stderr: \(refused.errors)")
    }

    /// `--session-ttl` may equal `--max-session-ttl`: "at most", not "below".
    @Test("--session-ttl equal to --max-session-ttl starts the server, and sessions get that ttl")
    func ttlAtTheMaximum() throws {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "memory", "--max-session-ttl", "3600", "--session-ttl", "3600"],
            accessLog: false)
        defer { _ = try? server.terminate() }
        let port = try server.port()
        let created = try Curl.run([
            "-s", "http://127.0.0.1:\(port)/v1/sessions", "-H", "Content-Type: application/json",
            "-d", #"{"root": {"screen": "inbox"}}"#,
        ])
        let session = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
        #expect(session["ttl"] as? Int == 3600)
    }

    @Test("--events-kept 1, the least, starts the server")
    func oneEventKept() throws {
        #expect(try Self.refusal(["--events-kept", "1"]) == nil)
    }
}
