import Foundation
import Testing

/// docs/api.md: "Every authorised read answered ... starts the count again". A read moves the
/// idle deadline in memory only, and the sweep writes it later (every 30 s under the default
/// --session-ttl): a clean stop in between must not hand the restarted server the older one.
@Suite("Idle deadlines across a clean restart")
struct LeaseRestartTests {
    @Test("A read just before a clean stop still counts after the restart")
    func readBeforeStop() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer()
        var client = try HTTPConnection(port: port)
        let created = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"], "ttl": 8])
        let session = try #require(CreatedSession(answer: created))
        let madeAt = Date()
        Thread.sleep(forTimeInterval: 4.5)
        // The deadline moves from 8 s after creation to 12.5 s.
        #expect(try client.get(session.route(), token: session.token).status == 200)
        #expect(try server.terminate() == 0)

        guard let restarted = data.restartServer(after: "a clean stop") else { return }
        (server, port) = restarted
        client = try HTTPConnection(port: port)
        // Past the deadline the creation set, well before the one the read set.
        Thread.sleep(forTimeInterval: max(0, 9.5 - Date().timeIntervalSince(madeAt)))
        #expect(
            try client.get(session.route(), token: session.token).status == 200,
            "the read 4.5 s into an 8 s ttl keeps the session until 12.5 s, across a clean restart")
        #expect(try server.terminate() == 0)
    }
}
