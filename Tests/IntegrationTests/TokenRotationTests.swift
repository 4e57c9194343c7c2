import Foundation
import Testing

/// `POST /v1/sessions/{id}/token`: a new token, and the old one dead everywhere at once.
@Suite("Token rotation")
struct TokenRotationTests {
    /// Rotates and insists on 200; returns the new token.
    private func rotate(_ session: CreatedSession, on client: HTTPConnection) throws -> String {
        let response = try client.request("POST", session.route("token"), token: session.token, body: [])
        #expect(response.status == 200, "body: \(response.text)")
        let json = try response.json()
        #expect(json.string("id") == session.id)
        return try #require(json.string("token"))
    }

    @Test("The new token opens the session, the old one no longer does, and the tree is untouched")
    func rotates() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let before = try client.snapshot(of: session)
            let fresh = try rotate(session, on: client)
            #expect(fresh != session.token && fresh.count == 43)
            try client.get(session.route(), token: session.token).expectProblem(401, "unauthorized")
            try client.post(session.route("pop"), text: "{}", token: session.token).expectProblem(401, "unauthorized")
            let renewed = CreatedSession(id: session.id, token: fresh, body: session.body)
            #expect(try client.snapshot(of: renewed) == before, "rotation is not a navigation change")
            let events = try client.get(session.route("events"), token: fresh).json()
            #expect(events.objects("events").map { $0.string("type") } == ["root-set", "pushed"])
            try client.post("pop", to: renewed).expectSession(revision: 3)
        }
    }

    @Test("Rotating without the session's token is refused and the token keeps working")
    func refused() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let other = try client.createSession()
            try client.request("POST", session.route("token"), body: []).expectProblem(401, "unauthorized")
            try client.request("POST", session.route("token"), token: other.token, body: [])
                .expectProblem(401, "unauthorized")
            try client.post(session.route("token"), text: #"{"token": "mine"}"#, token: session.token)
                .expectProblem(422, "unknown_field")
            #expect(try client.get(session.route(), token: session.token).status == 200)
        }
    }

    @Test("An event stream opened with the old token ends at the next change without sending it")
    func streamRevoked() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            let fresh = try rotate(session, on: client)
            let renewed = CreatedSession(id: session.id, token: fresh, body: session.body)
            try client.post("push", to: renewed, json: ["screen": "secret"]).expectSession(revision: 2)
            let last = try stream.nextEvent()
            #expect(last.event == "revoked")
            #expect(!last.data.contains("secret") && !last.data.contains("pushed"))
            #expect(stream.waitForEnd())
        }
    }

    @Test("A long poll made with the old token is answered 401 when the session next changes")
    func waitRevoked() throws {
        try withServer { server in
            let waiter = try server.connect()
            let client = try server.connect()
            let session = try client.createSession()
            try waiter.write(
                "GET", session.route("events?after=1&wait=10"), headers: [("Authorization", "Bearer \(session.token)")])
            #expect(!waiter.hasData(within: .milliseconds(200)))
            let fresh = try rotate(session, on: client)
            try client.post("push", to: CreatedSession(id: session.id, token: fresh, body: session.body), json: ["screen": "x"])
                .expectSession(revision: 2)
            try waiter.readResponse(timeout: .seconds(3)).expectProblem(401, "unauthorized")
        }
    }
}
