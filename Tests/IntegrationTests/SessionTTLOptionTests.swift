import Foundation
import Testing

/// docs/api.md: "A session lives `--session-ttl` seconds (default 86400) without being read or
/// changed". A value the server will not honour must be refused at start, not quietly cut.
@Suite("--session-ttl past --max-session-ttl")
struct SessionTTLOptionTests {
    @Test("A --session-ttl above the default --max-session-ttl is either granted or refused at start")
    func longDefault() throws {
        let twoWeeks = 14 * 86_400
        let server = try ServerProcess.start(arguments: ["--port", "0", "--session-ttl", String(twoWeeks)], accessLog: false)
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while server.process.isRunning, !server.output.contains(#""event":"listening""#), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard server.process.isRunning else {
            // Refused: that is one right answer, if it says why.
            #expect(try server.waitForExit() == 2)
            #expect(server.errorOutput.contains("--session-ttl"), "stderr: \(server.errorOutput)")
            return
        }
        defer { _ = try? server.terminate() }
        let created = try Curl.run([
            "-s", "http://127.0.0.1:\(try server.port())/v1/sessions", "-H", "Content-Type: application/json",
            "-d", #"{"root": {"screen": "inbox"}}"#,
        ])
        let session = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
        #expect(session["ttl"] as? Int == twoWeeks, "--session-ttl \(twoWeeks) was accepted, and a session got \(session["ttl"] ?? "none")")
    }
}
