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

    /// A change's watchers are told outside the session's lock, and with storage in memory a
    /// rotation may come in between: the stream then read the session under the new token and
    /// ended without the change its own token had made. The push and the rotation are sent at
    /// once, on two connections, in turn one first and then the other; whichever lands first,
    /// every stream must carry exactly what the old token made, then `revoked`, and a long
    /// poll answer with it or, when nothing was made, 401. The exact
    /// interleaving of the race is rare here, so EventSubscriberTests replays it as well.
    @Test("A change made just before a rotation reaches the old token's streams and long polls, and nothing made after it")
    func changeBeforeRotationIsSent() throws {
        try withServer { server in
            let client = try server.connect()
            let racer = try server.connect()
            var session = try client.createSession()
            var revision = 1
            for round in 0..<40 {
                // Several, so that the push's thread tells them one after another while the
                // rotation's may land: the window the race needs.
                let streams = try (0..<12).map { _ in
                    try EventStream(
                        connection: try server.connect(), path: session.route("events") + "?after=\(revision)",
                        headers: [("Authorization", "Bearer \(session.token)")])
                }
                #expect(streams.allSatisfy { $0.head.status == 200 })
                // And a long poll, parked before the push: it answers the push, or 401.
                let waiter = try server.connect()
                try waiter.write(
                    "GET", session.route("events?after=\(revision)&wait=10"),
                    headers: [("Authorization", "Bearer \(session.token)")])
                #expect(!waiter.hasData(within: .milliseconds(30)))
                let push = {
                    try client.write(
                        "POST", session.route("push"),
                        headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
                        body: Array(#"{"screen": "mine"}"#.utf8))
                }
                let rotation = {
                    try racer.write("POST", session.route("token"), headers: [("Authorization", "Bearer \(session.token)")], body: [])
                }
                if round.isMultiple(of: 2) {
                    try push()
                    try rotation()
                } else {
                    try rotation()
                    try push()
                }
                let pushed = try client.readResponse(to: "POST")
                let rotated = try racer.readResponse(to: "POST")
                #expect(rotated.status == 200)
                let renewed = CreatedSession(
                    id: session.id, token: try #require(try rotated.json().string("token")), body: session.body)
                // Made with the old token when it landed first; refused when the rotation did.
                #expect(pushed.status == 200 || pushed.status == 401, "round \(round): \(pushed.text)")
                let made = pushed.status == 200
                if made { revision += 1 }
                // A change of the new token's, which the old stream must not carry.
                try client.post(made ? "pop" : "push", to: renewed, json: made ? [:] : ["screen": "theirs"])
                    .expectSession(revision: revision + 1)
                revision += 1
                if !made {
                    try client.post("pop", to: renewed, json: [:]).expectSession(revision: revision + 1)
                    revision += 1
                }
                let madeRevision = made ? revision - 1 : revision - 2
                let waited = try waiter.readResponse(timeout: .seconds(3))
                if made {
                    #expect(waited.status == 200, "round \(round): \(waited.text)")
                    #expect(try waited.json().objects("events").map { $0.int("revision") } == [madeRevision])
                } else {
                    waited.expectProblem(401, "unauthorized")
                }
                for (index, stream) in streams.enumerated() {
                    var seen: [ServerSentEvent] = []
                    while let event = try? stream.nextEvent() {
                        seen.append(event)
                        if event.event == "revoked" { break }
                    }
                    let summary = "round \(round), stream \(index): " + seen.map { "\($0.event ?? "message") \($0.id ?? "") \($0.data)" }.joined(separator: "; ")
                    #expect(seen.count == (made ? 2 : 1), "\(summary)")
                    if made {
                        #expect(seen.first?.data.contains("pushed") == true, "\(summary)")
                        #expect(seen.first?.id == String(madeRevision), "\(summary)")
                    }
                    #expect(seen.last?.event == "revoked", "\(summary)")
                    #expect(seen.last?.data == #"{"revision":\#(madeRevision)}"#, "\(summary)")
                    #expect(stream.waitForEnd())
                }
                session = renewed
            }
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
