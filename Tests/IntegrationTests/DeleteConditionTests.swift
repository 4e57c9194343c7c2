import Presentation
import Testing

/// RFC 9110 13.1.1: an origin server MUST NOT perform the method when If-Match is false.
@Suite("DELETE with If-Match")
struct DeleteConditionTests {
    @Test("A DELETE with a stale If-Match is 412 and deletes nothing")
    func staleDelete() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            try client.delete(session.route(), token: session.token, headers: [("If-Match", "\"1\"")])
                .expectProblem(412, "revision_mismatch")
            #expect(try client.get(session.route(), token: session.token).status == 200)
        }
    }

    @Test("A DELETE with the current If-Match, a list holding it, or * deletes; a stale one on a durable server keeps it across a restart")
    func matchingDelete() throws {
        try withServer { server in
            let client = try server.connect()
            for condition in ["\"1\"", "\"7\", \"1\"", "*"] {
                let session = try client.createSession()
                #expect(try client.delete(session.route(), token: session.token, headers: [("If-Match", condition)]).status == 204, "\(condition)")
                #expect(try client.get(session.route(), token: session.token).status == 404)
            }
        }
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
        try client.delete(session.route(), token: session.token, headers: [("If-Match", "\"1\"")])
            .expectProblem(412, "revision_mismatch")
        #expect(try server.terminate() == 0)
        let (restarted, newPort) = try data.startServer()
        #expect(try HTTPConnection(port: newPort).get(session.route(), token: session.token).status == 200)
        #expect(try restarted.terminate() == 0)
    }

    /// docs/api.md, "Lifetime and storage": a change refused (a stale `If-Match`) does not
    /// start the idle count again. A DELETE refused so counted as a use before it was judged.
    @Test("A DELETE refused for a stale If-Match does not renew the session's idle deadline")
    func staleDeleteKeepsTheDeadline() throws {
        let clock = TestClock()
        try withServer(clock: clock) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let id = try #require(SessionID(rawValue: session.id))
            let created = try #require(server.store.lease(of: id)?.lastAccess)
            clock.advance(by: 10)
            try client.delete(session.route(), token: session.token, headers: [("If-Match", "\"7\"")])
                .expectProblem(412, "revision_mismatch")
            #expect(server.store.lease(of: id)?.lastAccess == created)
        }
    }
}
