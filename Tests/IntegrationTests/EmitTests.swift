import Foundation
import Testing

/// `POST …/emit`: an open presentation hands its presenter a value and stays open, a result
/// that is a stream of values, over the real server.
@Suite("Emitting results")
struct EmitTests {
    /// Inbox s2 presents a filter sheet p3 (stack k4, screen s5).
    static func sessionWithSheet(_ client: HTTPConnection) throws -> CreatedSession {
        let session = try client.createSession()
        try client.post("present", to: session, json: ["screen": "filters", "style": "sheet"]).expectSession(revision: 2)
        return session
    }

    @Test("Each value goes to the presenter, as a result event, and the sheet stays presented")
    func emitOverHTTP() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            let json = try client.post("emit", to: session, json: ["result": ["filter": "unread"]]).expectSession(
                revision: 3)
            let sheet = Wire.presentation(
                "p3", style: "sheet", presentedBy: "s2", stack: Wire.stack("k4", [Wire.screen("s5", "filters")]))
            let inbox = Wire.screen("s2", "inbox", result: Wire.result(from: "p3", value: ["filter": "unread"], revision: 3))
            #expect(JSONText.canonical(json["root"]) == JSONText.canonical(Wire.stack("k1", [inbox], presentation: sheet)))
            #expect(json["presentation"] == nil, "an emit presents nothing")

            let status = try client.get(session.route("presentations/p3"), token: session.token).json()
            #expect(status.string("status") == "presented")
            let events = try client.events(of: session, after: 2)
            #expect(
                JSONText.canonical(events.map { $0.filter { $0.key != "time" } })
                    == JSONText.canonical([
                        ["revision": 3, "type": "result", "screen": "s2", "from": "p3", "value": ["filter": "unread"]]
                    ]))

            // Named, from a presentation under the topmost one: to the screen that presented it.
            try client.post("push", to: session, json: ["screen": "sort"]).expectSession(revision: 4)
            try client.post("present", to: session, json: ["screen": "help", "style": "popover"]).expectSession(
                revision: 5)
            try client.post("emit", to: session, json: ["presentation": "p3", "result": "flagged"]).expectSession(
                revision: 6)
            let root = try client.fetch(session).object("root")
            let kept = root?.objects("path").first?.object("result")
            #expect(JSONText.canonical(kept) == JSONText.canonical(Wire.result(from: "p3", value: "flagged", revision: 6)))
            #expect(root?.object("presentation")?.object("stack")?.object("presentation")?.string("id") == "p7")
        }
    }

    @Test("A subscriber sees each value live; the dismiss without a last value ends the stream as cancelled")
    func streamToSubscriber() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            for (index, value) in ["unread", "flagged"].enumerated() {
                try client.post("emit", to: session, json: ["result": value]).expectSession(revision: 3 + index)
                let event = try stream.nextEvent().json()
                #expect(event.string("type") == "result" && event.string("from") == "p3")
                #expect(event.string("value") == value && event.int("revision") == 3 + index)
            }
            try client.post("dismiss", to: session, json: [:]).expectSession(revision: 5)
            #expect(try stream.nextEvent().json().string("type") == "cancelled")
            let status = try client.get(session.route("presentations/p3"), token: session.token).json()
            #expect(status.string("status") == "cancelled")
            #expect(JSONText.canonical(status["result"]) == JSONText.canonical(nil))
            // The values emitted before stay delivered.
            let inbox = try client.fetch(session).object("root")?.objects("path").first
            #expect(JSONText.canonical(inbox?["result"]) == JSONText.canonical(Wire.result(from: "p3", value: "flagged", revision: 4)))
        }
    }

    @Test("The status names the last value emitted; a wait with after ends at the next one, without it at the close")
    func statusFollowsStream() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            let auth = [("Authorization", "Bearer \(session.token)")]
            let first = try client.get(session.route("presentations/p3"), token: session.token).json()
            #expect(first["emitted"] is NSNull)

            // A wait with `after` is answered by the next value, emitted from another connection.
            let waiter = try server.connect()
            try waiter.write("GET", session.route("presentations/p3?wait=10&after=2"), headers: auth)
            #expect(!waiter.hasData(within: .milliseconds(300)), "answered before anything was emitted")
            try client.post("emit", to: session, json: ["result": "unread"]).expectSession(revision: 3)
            let woken = try waiter.readResponse(timeout: .seconds(3)).json()
            #expect(woken.string("status") == "presented")
            #expect(JSONText.canonical(woken["emitted"]) == JSONText.canonical(["value": "unread", "revision": 3]))

            // Already emitted after `after`: answered at once.
            let started = ContinuousClock.now
            let again = try client.get(session.route("presentations/p3?wait=10&after=2"), token: session.token).json()
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(JSONText.canonical(again["emitted"]) == JSONText.canonical(["value": "unread", "revision": 3]))

            // Without `after` the wait is for the close, as before emits existed.
            try waiter.write("GET", session.route("presentations/p3?wait=10"), headers: auth)
            try client.post("emit", to: session, json: ["result": "flagged"]).expectSession(revision: 4)
            #expect(!waiter.hasData(within: .milliseconds(300)), "an emit ended a wait without after")
            try client.post("dismiss", to: session, json: ["result": "flagged"]).expectSession(revision: 5)
            let closed = try waiter.readResponse(timeout: .seconds(3)).json()
            #expect(closed.string("status") == "dismissed" && closed.string("result") == "flagged")
            #expect(closed["emitted"] is NSNull)

            try client.get(session.route("presentations/p3?after=x"), token: session.token).expectProblem(400, "invalid_query")
        }
    }

    @Test("A sheet cancelled after a value the poller has not seen still reports that value as emitted")
    func cancelKeepsLastEmitted() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            try client.post("emit", to: session, json: ["result": "unread"]).expectSession(revision: 3)
            let seen = try client.get(session.route("presentations/p3?wait=10&after=2"), token: session.token).json()
            #expect(JSONText.canonical(seen["emitted"]) == JSONText.canonical(["value": "unread", "revision": 3]))

            // Between two polls the person picks "flagged" and swipes the sheet away: the inbox
            // shows flagged (the last value stays), and the poller following the documented
            // recipe (`after` = the last emitted revision) must learn it too.
            try client.post("emit", to: session, json: ["result": "flagged"]).expectSession(revision: 4)
            try client.post("dismiss", to: session, json: [:]).expectSession(revision: 5)
            let closed = try client.get(session.route("presentations/p3?wait=10&after=3"), token: session.token).json()
            #expect(closed.string("status") == "cancelled")
            #expect(closed["result"] is NSNull)
            #expect(JSONText.canonical(closed["emitted"]) == JSONText.canonical(["value": "flagged", "revision": 4]))
            let inbox = try client.fetch(session).object("root")?.objects("path").first
            #expect(JSONText.canonical(inbox?["result"]) == JSONText.canonical(Wire.result(from: "p3", value: "flagged", revision: 4)))

            // A sheet cancelled without ever emitting has nothing to report.
            try client.post("present", to: session, json: ["screen": "sort", "style": "sheet"]).expectSession(revision: 6)
            try client.post("dismiss", to: session, json: [:]).expectSession(revision: 7)
            let silent = try client.get(session.route("presentations/p6"), token: session.token).json()
            #expect(silent.string("status") == "cancelled" && silent["emitted"] is NSNull)
        }
    }

    @Test(
        "A refused emit answers its problem and changes nothing",
        arguments: [
            (#"{"result": 1, "presentation": "p9"}"#, 404, "presentation_not_found", nil as String?),
            (#"{}"#, 422, "missing_field", "/result"),
            (#"{"result": null}"#, 422, "missing_field", "/result"),
            (#"{"result": 1, "presentation": 7}"#, 422, "invalid_field", "/presentation"),
            (#"{"result": 1, "extra": true}"#, 422, "unknown_field", "/extra"),
            (#"{"result": 1, "from": "s2"}"#, 409, "top_changed", nil),
        ])
    func refused(body: String, status: Int, code: String, pointer: String?) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            try client.expectRefused("emit", body: body, of: session, at: 2, status: status, code: code, pointer: pointer)
        }
    }

    @Test("With nothing presented, or an alert up, an emit is refused")
    func refusedByTree() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("emit", to: session, json: ["result": 1]).expectProblem(409, "nothing_presented")
            try client.post(
                "present", to: session,
                json: ["style": "alert", "alert": ["title": "Sure?", "actions": [["id": "ok", "title": "OK"]]]]
            ).expectSession(revision: 2)
            let before = try client.snapshot(of: session)
            try client.post("emit", to: session, json: ["result": 1]).expectProblem(409, "blocked_by_alert")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("In a batch, emits are steps like any other: several values in one revision, or none")
    func inBatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try Self.sessionWithSheet(client)
            let json = try client.post(
                "batch", to: session,
                json: ["operations": [["op": "emit", "result": 1], ["op": "push", "screen": "more"], ["op": "emit", "result": 2]]]
            ).expectSession(revision: 3)
            let inbox = json.object("root")?.objects("path").first
            #expect(JSONText.canonical(inbox?["result"]) == JSONText.canonical(Wire.result(from: "p3", value: 2, revision: 3)))
            #expect(try client.events(of: session, after: 2).map { $0.string("type") } == ["result", "pushed", "result"])

            let before = try client.snapshot(of: session)
            let problem = try client.post(
                "batch", to: session, json: ["operations": [["op": "emit", "result": 3], ["op": "emit"]]]
            ).expectProblem(422, "missing_field")
            #expect(problem.string("pointer") == "/operations/1/result")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("An emitted value survives a restart with durable storage, and an export and import")
    func durableAndExported() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer()
        var client = try HTTPConnection(port: port)
        let session = try Self.sessionWithSheet(client)
        try client.post("emit", to: session, json: ["result": ["filter": "unread"]]).expectSession(revision: 3)
        let before = try client.get(session.route(), token: session.token).body
        #expect(try server.terminate() == 0)

        (server, port) = try data.startServer()
        client = try HTTPConnection(port: port)
        let restored = try client.get(session.route(), token: session.token)
        #expect(restored.body == before)
        let (copy, imported) = try client.exportAndImport(session)
        #expect(JSONText.canonical(imported["root"]) == JSONText.canonical(try restored.json()["root"]))
        // The copy's sheet is still open, and goes on streaming.
        try client.post("emit", to: copy, json: ["result": 2]).expectSession(revision: 4)
        #expect(try server.terminate() == 0)
    }
}
