import Foundation
import Testing

/// Idle expiry and the limits that protect the host, over HTTP against the durable binary.
@Suite("Expiry and storage limits")
struct StorageLimitTests {
    @Test("An idle session expires after its ttl, reads keep one alive, and expiry reaches the disk")
    func expiry() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer(["--session-ttl", "3"], accessLog: true)
        var client = try HTTPConnection(port: port)
        let created = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"], "ttl": 1])
        #expect(created.status == 201)
        #expect(try created.json()["ttl"] as? Int == 1)
        let json = try created.json()
        let short = CreatedSession(
            id: try #require(json["id"] as? String), token: try #require(json["token"] as? String), body: created.body)
        let kept = try client.createSession()
        #expect(kept.json["ttl"] as? Int == 3)
        for _ in 0..<4 {
            Thread.sleep(forTimeInterval: 0.6)
            #expect(try client.get(kept.route(), token: kept.token).status == 200)
        }
        try client.get(short.route(), token: short.token).expectProblem(404, "session_not_found")
        try client.post("push", to: short, json: ["screen": "next"]).expectProblem(404, "session_not_found")
        Thread.sleep(forTimeInterval: 4.5)
        try client.get(kept.route(), token: kept.token).expectProblem(404, "session_not_found")
        // A lookup treats an expired session as gone at once; the sweep (every second here)
        // removes it later, on its own thread, and a stop does not sweep: wait for its line.
        func swept() -> Int {
            server.logLines().filter { $0["event"] as? String == "sessions_expired" }.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }
        }
        #expect(eventually { swept() >= 2 }, "the sweep removed both: \(server.output)")
        #expect(try server.terminate() == 0)
        #expect(swept() == 2, "the sweep removed both")

        (server, port) = try data.startServer([], accessLog: true)
        client = try HTTPConnection(port: port)
        try client.get(kept.route(), token: kept.token).expectProblem(404, "session_not_found")
        #expect(try server.terminate() == 0)
        let storage = server.logLines().first { $0["event"] as? String == "storage" }
        #expect(storage?["sessions_loaded"] as? Int == 0)
        #expect(storage?["sessions_expired"] as? Int == 0, "expired rows were already gone from the file")
    }

    @Test("Past --max-sessions, creation gets 503 with Retry-After while existing sessions keep working")
    func sessionLimit() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer(["--max-sessions", "2"])
        let client = try HTTPConnection(port: port)
        let first = try client.createSession()
        let second = try client.createSession()
        let refused = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
        refused.expectProblem(503, "too_many_sessions")
        #expect(refused.header("Retry-After") != nil)
        #expect(try refused.json()["limit"] as? Int == 2)
        #expect(try client.post("push", to: first, json: ["screen": "next"]).status == 200)
        #expect(try client.delete(second.route(), token: second.token).status == 204)
        _ = try client.createSession()
        #expect(try server.terminate() == 0)
    }

    @Test("Past --max-stored-bytes, creation and import get 503 while existing sessions keep working")
    func storedBytesLimit() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer(["--max-stored-bytes", "2000"])
        let client = try HTTPConnection(port: port)
        let pad = String(repeating: "x", count: 600)
        var sessions: [CreatedSession] = []
        var refused: ClientResponse?
        for _ in 0..<10 {
            let response = try client.post("/v1/sessions", json: ["root": ["screen": "inbox", "params": ["pad": pad]]])
            if response.status != 201 {
                refused = response
                break
            }
            let json = try response.json()
            sessions.append(CreatedSession(id: json["id"] as? String ?? "", token: json["token"] as? String ?? "", body: response.body))
        }
        let problem = try #require(refused, "ten sessions of 600 bytes fit in 2000 bytes")
        problem.expectProblem(503, "storage_limit_reached")
        #expect(problem.header("Retry-After") != nil)
        #expect((2...4).contains(sessions.count))
        #expect(try client.post("push", to: sessions[0], json: ["screen": "next", "params": ["pad": pad]]).status == 200)
        let export = try client.get(sessions[0].route("export"), token: sessions[0].token)
        try client.post("/v1/sessions/import", bytes: export.body).expectProblem(503, "storage_limit_reached")
        #expect(try server.terminate() == 0)
    }
}
