import Foundation
import Testing

/// Option values at the edges of what docs/api.md and `--help` allow: the edge itself starts
/// the server, one past it is refused at start (exit 2), never quietly served.
@Suite("Option ranges")
struct OptionRangeTests {
    /// The exit status and stderr of the binary started with `arguments` when it refused to
    /// start; nil when it listened (it is then stopped).
    private static func refusal(_ arguments: [String]) throws -> (status: Int32, errors: String)? {
        let (server, exited) = try ServerProcess.startOrExit(arguments: ["--port", "0", "--storage", "memory"] + arguments)
        guard exited else {
            _ = try server.terminate()
            return nil
        }
        return (server.process.terminationStatus, server.errorOutput)
    }

    @Test(
        "One past an option's range is refused at start, naming the option",
        arguments: [
            (["--events-kept", "0"], "--events-kept"),
            (["--max-session-bytes", "255"], "--max-session-bytes"),
            (["--max-session-write-rate", "65535"], "--max-session-write-rate"),
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
