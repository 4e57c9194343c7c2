import Foundation
import Presentation
import Testing

/// Creating, reading and deleting sessions over real HTTP, and the health routes.
@Suite("Sessions: create, read, delete")
struct SessionLifecycleTests {
    @Test("Creating a session answers 201 with Location, ETag, the token and a one-screen tree")
    func creationAnswer() throws {
        try withServer(clock: TestClock()) { server in
            let client = try server.connect()
            let response = try client.post(
                "/v1/sessions", json: ["root": ["screen": "inbox", "title": "Inbox", "params": ["folder": "all"]]])
            let session = response.expectSession(status: 201, revision: 1)
            let id = try #require(session.string("id"))
            let token = try #require(session.string("token"))
            #expect(response.header("Location") == "/v1/sessions/\(id)")
            #expect(token.count >= 16)
            #expect(token != id)
            #expect(session.string("createdAt") == "2026-11-22T15:00:00.000Z")
            #expect(session.string("updatedAt") == "2026-11-22T15:00:00.000Z")
            #expect(JSONText.canonical(session["top"]) == JSONText.canonical(Wire.top(stack: "k1", screen: "s2")))
            let root = Wire.stack("k1", [Wire.screen("s2", "inbox", title: "Inbox", params: ["folder": "all"])])
            #expect(JSONText.canonical(session["root"]) == JSONText.canonical(root))
        }
    }

    @Test("Reading a session answers the same tree with its ETag and never the token")
    func readingASession() throws {
        try withServer { server in
            let client = try server.connect()
            let created = try client.createSession(root: ["screen": "inbox"])
            let response = try client.get(created.route(), token: created.token)
            let session = response.expectSession(revision: 1)
            #expect(session.string("id") == created.id)
            #expect(session["token"] == nil)
            #expect(SessionSnapshot(session) == SessionSnapshot(created.json))
            #expect(session.string("createdAt") == created.json.string("createdAt"))
        }
    }

    @Test("Every session has its own id, token and id counter")
    func sessionsAreIndependent() throws {
        try withServer { server in
            let client = try server.connect()
            let first = try client.createSession(root: ["screen": "a"])
            let second = try client.createSession(root: ["screen": "b"])
            #expect(first.id != second.id)
            #expect(first.token != second.token)
            #expect(
                try client.post("push", to: first, json: ["screen": "a2"]).expectSession().rootPathIDs == ["s2", "s3"])
            #expect(second.json.rootPathIDs == ["s2"])
            #expect(try client.fetch(second).rootPathNames == ["b"])
        }
    }

    @Test("Deleting a session answers 204, after which it is gone for every route")
    func deletingASession() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let deleted = try client.delete(session.route(), token: session.token)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            try client.get(session.route(), token: session.token).expectProblem(404, "session_not_found")
            try client.post("push", to: session, json: ["screen": "x"]).expectProblem(404, "session_not_found")
            try client.get(session.route("events"), token: session.token).expectProblem(404, "session_not_found")
            try client.delete(session.route(), token: session.token).expectProblem(404, "session_not_found")
        }
    }

    @Test("A change moves updatedAt to the change's time and leaves createdAt")
    func timestamps() throws {
        let clock = TestClock()
        try withServer(clock: clock) { server in
            let client = try server.connect()
            let session = try client.createSession()
            clock.advance(by: 2.5)
            let pushed = try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            #expect(pushed.string("createdAt") == "2026-11-22T15:00:00.000Z")
            #expect(pushed.string("updatedAt") == "2026-11-22T15:00:02.500Z")
            clock.advance(by: 60.25)
            let read = try client.fetch(session)
            #expect(read.string("updatedAt") == "2026-11-22T15:00:02.500Z")
        }
    }

    @Test("One keep-alive connection carries many requests in turn")
    func keepAlive() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for step in 1...20 {
                let pushed = try client.post("push", to: session, json: ["screen": "step\(step)"])
                pushed.expectSession(revision: 1 + step)
                #expect(!client.isClosed)
            }
            #expect(try client.fetch(session).rootPathIDs.count == 21)
            #expect(!client.isClosed)
        }
    }

    @Test("Health and readiness answer ok without a token", arguments: ["/healthz", "/readyz"])
    func health(path: String) throws {
        try withServer { server in
            let response = try server.connect().get(path)
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(JSONText.canonical(try response.json()) == JSONText.canonical(["status": "ok"]))
        }
    }

    @Test("A refused root creates nothing: the one free slot is still free afterwards")
    func refusedRootCreatesNothing() throws {
        try withServer(limits: Limits(maxSessions: 1)) { server in
            let client = try server.connect()
            try client.post("/v1/sessions", json: ["root": ["screen": ""]]).expectProblem(422, "invalid_screen")
            let missingName = try client.post("/v1/sessions", json: ["root": ["params": [:] as [String: Any]]])
            #expect(missingName.expectProblem(422, "missing_field").string("pointer") == "/root/screen")
            let missingRoot = try client.post("/v1/sessions", json: [:] as [String: Any])
            #expect(missingRoot.expectProblem(422, "missing_field").string("pointer") == "/root")
            let unknown = try client.post("/v1/sessions", json: ["root": ["screen": "a"], "theme": "dark"])
            #expect(unknown.expectProblem(422, "unknown_field").string("pointer") == "/theme")
            _ = try client.createSession()
        }
    }
}
