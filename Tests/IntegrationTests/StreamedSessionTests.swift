import Foundation
import Presentation
import Testing

/// `?include=session` on the events route: the session itself after each revision's events,
/// so that a client following them needs no read of its own, over the real server.
@Suite("Events that include the session")
struct StreamedSessionTests {
    static func stream(_ server: TestServer, _ session: CreatedSession, query: String, lastEventID: String? = nil)
        throws -> EventStream
    {
        var headers = [("Authorization", "Bearer \(session.token)")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let stream = try EventStream(connection: try server.connect(), path: session.route("events") + query, headers: headers)
        #expect(stream.head.status == 200)
        return stream
    }

    @Test("A stream opens with the session, and each revision's events are followed by the session at that revision")
    func streamFollowsEachRevision() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let stream = try Self.stream(server, session, query: "?include=session")
            let opening = try stream.nextEvent()
            #expect(opening.event == "session" && opening.id == "1")
            #expect(JSONText.canonical(try opening.json()) == JSONText.canonical(try client.fetch(session)))

            // Line breaks in a string must not break the message's one `data:` line.
            try client.post("push", to: session, json: ["screen": "message", "params": ["body": "one\ntwo\r\nthree"]])
                .expectSession(revision: 2)
            let pushed = try stream.nextEvent()
            #expect(pushed.event == nil)
            #expect(try pushed.json().string("type") == "pushed")
            let second = try stream.nextEvent()
            #expect(second.event == "session" && second.id == "2")
            let read = try client.get(session.route(), token: session.token)
            #expect(Array(second.data.utf8) == read.body, "the same bytes a read answers")

            // A batch of several events: all of them, then the session once.
            try client.post(
                "batch", to: session,
                json: ["operations": [["op": "set-state", "state": "loaded"], ["op": "present", "style": "sheet", "screen": "compose"]]]
            ).expectSession(revision: 3)
            let third = try stream.nextEvents(3)
            #expect(third.map(\.event) == [nil, nil, "session"])
            #expect(third.prefix(2).map { (try? $0.json())?.string("type") } == ["state-set", "presented"])
            let tree = try third[2].json()
            #expect(tree.int("revision") == 3 && tree.object("top")?.string("presentation") == "p4")
            #expect(tree.object("root")?.objects("path").last?.object("state")?.string("name") == "loaded")
        }
    }

    @Test("Resuming after Last-Event-ID sends the missed events, then the session as it stands")
    func resumeEndsWithSession() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for screen in ["a", "b"] { _ = try client.post("push", to: session, json: ["screen": screen]) }
            let stream = try Self.stream(server, session, query: "?include=session", lastEventID: "2")
            let resumed = try stream.nextEvents(2)
            #expect(resumed[0].event == nil)
            #expect(try resumed[0].json().int("revision") == 3)
            #expect(resumed[1].event == "session" && resumed[1].id == "3")
            #expect(JSONText.canonical(try resumed[1].json()) == JSONText.canonical(try client.fetch(session)))
        }
    }

    @Test("A batch with more events than are kept reaches up-to-date streams and reads whole, not as a reset")
    func oversizedBatchArrivesWhole() throws {
        // Two events kept, a batch of three in one revision: clients that had revision 1 read all
        // of revision 2 (it used to be dropped whole, leaving them only `reset` and 410).
        try withServer(limits: Limits(eventsKept: 2)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let plain = try Self.stream(server, session, query: "")
            let including = try Self.stream(server, session, query: "?include=session")
            #expect(try including.nextEvent().event == "session")
            try client.post(
                "batch", to: session,
                json: ["operations": [["op": "push", "screen": "a"], ["op": "push", "screen": "b"], ["op": "push", "screen": "c"]]]
            ).expectSession(revision: 2)
            let events = try plain.nextEvents(3)
            #expect(events.map(\.event) == [nil, nil, nil])
            #expect(try events.map { try $0.json().string("type") } == ["pushed", "pushed", "pushed"])
            #expect(events.last?.id == "2", "the revision's last event carries its id")
            let followed = try including.nextEvents(4)
            #expect(followed.map(\.event) == [nil, nil, nil, "session"])
            #expect(JSONText.canonical(try followed[3].json()) == JSONText.canonical(try client.fetch(session)))
            let read = try client.get(session.route("events?after=1"), token: session.token)
            #expect(read.status == 200)
        }
    }

    @Test("Without include a stream carries events only, as before")
    func withoutInclude() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let stream = try Self.stream(server, session, query: "")
            try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            try client.post("push", to: session, json: ["screen": "b"]).expectSession(revision: 3)
            let events = try stream.nextEvents(2)
            #expect(events.map(\.event) == [nil, nil])
            #expect(events.map { (try? $0.json())?.int("revision") } == [2, 3])
        }
    }

    @Test("A read of the events, or a long poll, answers the session beside them")
    func pollIncludesSession() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let page = try client.get(session.route("events?after=0&include=session"), token: session.token).json()
            #expect(JSONText.canonical(page["session"]) == JSONText.canonical(try client.fetch(session)))
            #expect((page["events"] as? [Any])?.count == 1)

            let waiter = try server.connect()
            try waiter.write(
                "GET", session.route("events?after=1&wait=10&include=session"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(!waiter.hasData(within: .milliseconds(200)))
            try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            let woken = try waiter.readResponse(timeout: .seconds(3)).json()
            #expect((woken["events"] as? [[String: Any]])?.first?.string("type") == "pushed")
            #expect(JSONText.canonical(woken["session"]) == JSONText.canonical(try client.fetch(session)))

            let plain = try client.get(session.route("events?after=1"), token: session.token).json()
            #expect(plain["session"] == nil)
        }
    }

    @Test("Any other include is refused", arguments: ["include=tree", "include=", "include=session,events"])
    func otherIncludeRefused(query: String) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.get(session.route("events?\(query)"), token: session.token).expectProblem(400, "invalid_query")
            let stream = try client.get(
                session.route("events?\(query)"), token: session.token, headers: [("Accept", "text/event-stream")])
            _ = stream.expectProblem(400, "invalid_query")
        }
    }
}
