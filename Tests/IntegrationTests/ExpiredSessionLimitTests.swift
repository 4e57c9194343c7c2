import Foundation
import Testing

/// docs/api.md: past `--max-sessions` live sessions, creation gets 503. A session that has
/// expired is not live (it answers 404), even before the sweep (every 30 s at the default
/// `--session-ttl`) frees it.
@Suite("Expired sessions and --max-sessions")
struct ExpiredSessionLimitTests {
    @Test("Sessions that expired free their slots for new ones before the sweep comes")
    func expiredSessionsFreeSlots() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--max-sessions", "2"], accessLog: false)
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        var created: [CreatedSession] = []
        for screen in ["a", "b"] {
            let answer = try client.post("/v1/sessions", json: ["root": ["screen": screen], "ttl": 1])
            created.append(try #require(CreatedSession(answer: answer), "status \(answer.status)"))
        }
        let full = try client.post("/v1/sessions", json: ["root": ["screen": "c"]])
        #expect(full.expectProblem(503, "too_many_sessions").int("limit") == 2)

        Thread.sleep(forTimeInterval: 1.5)
        for session in created {
            try client.get(session.route(), token: session.token).expectProblem(404, "session_not_found")
        }
        let answer = try client.post("/v1/sessions", json: ["root": ["screen": "c"]])
        #expect(answer.status == 201, "an expired session still held a slot: \(answer.status)")
    }
}
