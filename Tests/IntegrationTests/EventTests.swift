import Foundation
import Presentation
import PresentationAPI
import Testing

/// The event history: listing, long polling, trimming, and Server-Sent Events.
@Suite("Events")
struct EventTests {
    private static let time = "2026-11-22T15:00:00.000Z"

    @Test("Events after a revision describe each change with its ids, in order")
    func eventsAfterRevision() throws {
        try withServer(clock: TestClock()) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "thread"]).expectSession(revision: 2)
            try client.post("present", to: session, json: ["screen": "reply", "style": "sheet"]).expectSession(
                revision: 3)
            try client.post("push", to: session, json: ["screen": "format"]).expectSession(revision: 4)
            try client.post("pop", to: session, json: ["result": "bold"]).expectSession(revision: 5)
            try client.post("replace", to: session, json: ["screen": "reply2"]).expectSession(revision: 6)
            try client.post("dismiss", to: session, json: ["result": ["sent": true]]).expectSession(revision: 7)
            try client.post("set-root", to: session, json: ["screen": "home"]).expectSession(revision: 8)
            let response = try client.get(session.route("events?after=1"), token: session.token)
            #expect(response.status == 200)
            let json = try response.json()
            #expect(json.int("revision") == 8)
            func event(_ revision: Int, _ type: String, _ members: [String: Any]) -> [String: Any] {
                members.merging(["revision": revision, "type": type, "time": Self.time]) { $1 }
            }
            let expected: [[String: Any]] = [
                event(2, "pushed", ["stack": "k1", "screen": "s3"]),
                event(3, "presented", ["presentation": "p4", "style": "sheet", "presentedBy": "s3", "stack": "k5", "screen": "s6"]),
                event(4, "pushed", ["stack": "k5", "screen": "s7"]),
                event(5, "popped", ["stack": "k5", "screens": ["s7"]]),
                event(5, "result", ["screen": "s6", "from": "s7", "value": "bold"]),
                event(6, "replaced", ["stack": "k5", "screen": "s8", "replaced": "s6"]),
                event(7, "dismissed", ["presentation": "p4", "presentedBy": "s3"]),
                event(7, "result", ["screen": "s3", "from": "p4", "value": ["sent": true]]),
                event(8, "root-set", ["stack": "k9", "screen": "s10"]),
            ]
            #expect(JSONText.canonical(json["events"]) == JSONText.canonical(expected))
            let later = try client.get(session.route("events?after=7"), token: session.token)
            #expect(later.status == 200)
            #expect(try later.json().objects("events").map { $0.int("revision") } == [8])
        }
    }

    @Test("Without after, every kept event is listed, from the session's creation")
    func allKeptEvents() throws {
        try withServer(clock: TestClock()) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"]).expectSession()
            let json = try client.get(session.route("events"), token: session.token).json()
            #expect(json.int("revision") == 2)
            let events = json.objects("events")
            #expect(events.map { $0.int("revision") } == [1, 2])
            #expect(events.map { $0.string("type") } == ["root-set", "pushed"])
            #expect(events.first?.string("stack") == "k1")
            #expect(events.first?.string("screen") == "s2")
        }
    }

    @Test("A long poll is answered as soon as another connection changes the session")
    func longPollWakes() throws {
        try withServer { server in
            let waiter = try server.connect()
            let other = try server.connect()
            let session = try other.createSession()
            let started = ContinuousClock.now
            try waiter.write(
                "GET", session.route("events?after=1&wait=10"), headers: [("Authorization", "Bearer \(session.token)")])
            #expect(!waiter.hasData(within: .milliseconds(300)), "answered before anything changed")
            try other.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let response = try waiter.readResponse(timeout: .seconds(3))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(response.status == 200)
            let json = try response.json()
            #expect(json.int("revision") == 2)
            let events = json.objects("events")
            #expect(events.map { $0.string("type") } == ["pushed"])
            #expect(events.first?.string("screen") == "s3")
        }
    }

    @Test("A long poll with nothing new answers an empty list when the wait is up")
    func longPollTimesOut() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let started = ContinuousClock.now
            let response = try client.get(
                session.route("events?after=1&wait=1"), token: session.token, timeout: .seconds(5))
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(4))
            #expect(response.status == 200)
            #expect(
                JSONText.canonical(try response.json()) == JSONText.canonical(["revision": 1, "events": [] as [Any]]))
        }
    }

    @Test("A long poll for events already there answers at once")
    func longPollWithBacklog() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"]).expectSession()
            let started = ContinuousClock.now
            let response = try client.get(session.route("events?after=1&wait=30"), token: session.token)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(try response.json().objects("events").map { $0.int("revision") } == [2])
        }
    }

    @Test("Events older than the kept history are 410 history_expired; the kept ones still list")
    func historyExpired() throws {
        try withServer(limits: Limits(eventsKept: 4)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            for index in 1...6 {
                try client.post("push", to: session, json: ["screen": "p\(index)"]).expectSession(revision: 1 + index)
            }
            for after in [0, 1, 2] {
                let response = try client.get(session.route("events?after=\(after)"), token: session.token)
                response.expectProblem(410, "history_expired")
            }
            let kept = try client.get(session.route("events?after=3"), token: session.token)
            #expect(kept.status == 200)
            #expect(try kept.json().objects("events").map { $0.int("revision") } == [4, 5, 6, 7])
            let all = try client.get(session.route("events"), token: session.token)
            #expect(try all.json().objects("events").map { $0.int("revision") } == [4, 5, 6, 7])
        }
    }

    /// An EventSource reconnecting by itself (with Last-Event-ID) after a long cut took the 410
    /// as final and stopped for good; told `reset`, as a stream that falls behind while open
    /// is, it carries on from the current revision, with the session when it includes it.
    @Test("A stream resuming from before the kept history opens with reset at the current revision, not 410")
    func streamResumesPastHistory() throws {
        try withServer(limits: Limits(eventsKept: 4)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            for index in 1...6 {
                try client.post("push", to: session, json: ["screen": "p\(index)"]).expectSession(revision: 1 + index)
            }
            let token = ("Authorization", "Bearer \(session.token)")
            var revision = 7
            for (path, headers) in [
                (session.route("events?after=1"), [token]), (session.route("events"), [token, ("Last-Event-ID", "2")]),
            ] {
                let stream = try EventStream(connection: try server.connect(), path: path, headers: headers)
                #expect(stream.head.status == 200)
                let reset = try stream.nextEvent()
                #expect(reset.event == "reset" && reset.id == String(revision))
                #expect(try reset.json().int("revision") == revision)
                // Then live, from there on.
                try client.post("push", to: session, json: ["screen": "live"]).expectSession(revision: revision + 1)
                let next = try stream.nextEvent()
                #expect(try next.json().int("revision") == revision + 1 && next.id == String(revision + 1))
                revision += 1
            }
            let including = try EventStream(
                connection: try server.connect(), path: session.route("events?after=1&include=session"), headers: [token])
            let opening = try including.nextEvents(2)
            #expect(opening.map(\.event) == ["reset", "session"])
            #expect(opening.map(\.id) == [String(revision), String(revision)])
            #expect(JSONText.canonical(try opening[1].json()) == JSONText.canonical(try client.fetch(session)))
            // Past the current revision too: the client saw a revision this server no longer has
            // (a backup restored), and is told to start again from what there is.
            let ahead = try EventStream(
                connection: try server.connect(), path: session.route("events"), headers: [token, ("Last-Event-ID", "99")])
            #expect(ahead.head.status == 200)
            let restart = try ahead.nextEvent()
            #expect(restart.event == "reset" && restart.id == String(revision))
            // A read still says what is wrong.
            try client.get(session.route("events?after=99"), token: session.token).expectProblem(400, "revision_ahead")
        }
    }

    @Test("An event stream delivers each change as id: and data: lines as it happens")
    func streamDeliversChanges() throws {
        try withServer { server in
            let other = try server.connect()
            let session = try other.createSession()
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            #expect(stream.head.header("Content-Type") == "text/event-stream")
            #expect(stream.staysQuiet(for: .milliseconds(200)))
            try other.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let pushed = try stream.nextEvent()
            #expect(pushed.lines.first == "id: 2")
            #expect(pushed.lines.dropFirst().first?.hasPrefix("data: {") == true)
            let data = try pushed.json()
            #expect(data.string("type") == "pushed")
            #expect(data.int("revision") == 2)
            #expect(data.string("screen") == "s3")
            try other.post("pop", to: session, json: ["result": 42]).expectSession(revision: 3)
            let popped = try stream.nextEvents(2)
            // Only a revision's last message names it: a client cut off in between resumes from 2.
            #expect(popped.map(\.id) == [nil, "3"])
            #expect(try popped.map { try $0.json().string("type") } == ["popped", "result"])
            #expect(try popped[1].json()["value"] as? Int == 42)
        }
    }

    @Test("A stream resumes after Last-Event-ID, which wins over after")
    func streamResumes() throws {
        try withServer { server in
            let other = try server.connect()
            let session = try other.createSession()
            for name in ["a", "b", "c"] {
                try other.post("push", to: session, json: ["screen": name]).expectSession()
            }
            let auth = ("Authorization", "Bearer \(session.token)")
            let resumed = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [auth, ("Last-Event-ID", "2")])
            #expect(resumed.head.status == 200)
            #expect(try resumed.nextEvents(2).map(\.id) == ["3", "4"])
            #expect(resumed.staysQuiet(for: .milliseconds(200)))
            try other.post("push", to: session, json: ["screen": "d"]).expectSession(revision: 5)
            #expect(try resumed.nextEvent().id == "5")

            let fromAfter = try EventStream(
                connection: try server.connect(), path: session.route("events?after=1"), headers: [auth])
            #expect(try fromAfter.nextEvents(4).map(\.id) == ["2", "3", "4", "5"])

            let both = try EventStream(
                connection: try server.connect(), path: session.route("events?after=1"),
                headers: [auth, ("Last-Event-ID", "4")])
            #expect(try both.nextEvent().id == "5")
            #expect(both.staysQuiet(for: .milliseconds(200)))
        }
    }

    @Test("A stream without Last-Event-ID or after starts at the current revision")
    func streamStartsNow() throws {
        try withServer { server in
            let other = try server.connect()
            let session = try other.createSession()
            try other.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.staysQuiet(for: .milliseconds(200)))
            try other.post("push", to: session, json: ["screen": "b"]).expectSession(revision: 3)
            let event = try stream.nextEvent()
            #expect(event.id == "3")
            #expect(try event.json().string("screen") == "s4")
        }
    }

    @Test("?access_token= opens the event routes for clients that cannot set headers")
    func accessToken() throws {
        try withServer { server in
            let other = try server.connect()
            let session = try other.createSession()
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events?access_token=\(session.token)"))
            #expect(stream.head.status == 200)
            try other.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            #expect(try stream.nextEvent().id == "2")
            let listed = try other.get(session.route("events?after=1&access_token=\(session.token)"))
            #expect(listed.status == 200)
            #expect(try listed.json().objects("events").count == 1)
        }
    }

    @Test("An idle stream gets : keep-alive comments at the heartbeat interval")
    func keepAliveComments() throws {
        try withServer(api: APIConfiguration(heartbeatSeconds: 0.2)) { server in
            let session = try server.connect().createSession()
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            var lines: [String] = []
            while !lines.contains(": keep-alive") {
                lines.append(try stream.nextLine(timeout: .seconds(2)))
            }
            #expect(!lines.contains { $0.hasPrefix("id:") || $0.hasPrefix("data:") })
        }
    }

    @Test("Deleting the session ends its streams with event: deleted")
    func deletionEndsStream() throws {
        try withServer { server in
            let other = try server.connect()
            let session = try other.createSession()
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            #expect(try other.delete(session.route(), token: session.token).status == 204)
            #expect(try stream.nextEvent().event == "deleted")
            #expect(stream.waitForEnd())
        }
    }

    /// Without chunked encoding libmicrohttpd hands the stream's reader a block of 256 bytes
    /// at a time (kept small: every idle subscriber holds one); a longer event must still arrive whole.
    @Test("An HTTP/1.0 client gets the stream unchunked, events longer than a block whole")
    func http10Stream() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let subscriber = try server.connect()
            try subscriber.writeRaw(
                Array(("GET \(session.route("events")) HTTP/1.0\r\nAccept: text/event-stream\r\n"
                    + "Authorization: Bearer \(session.token)\r\n\r\n").utf8))
            let pad = String(repeating: "x", count: 1500)
            // A result event carries its value: this one is six blocks long.
            try client.post("push", to: session, json: ["screen": "picker"]).expectSession(revision: 2)
            try client.post("pop", to: session, json: ["result": ["pad": pad]]).expectSession(revision: 3)
            var received: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(5)
            let text = { String(decoding: received, as: UTF8.self) }
            while ContinuousClock.now < deadline, !text().hasSuffix("\n\n") || !text().contains(pad),
                let more = try subscriber.readAvailable(until: deadline)
            {
                received += more
            }
            let head = text().components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.hasPrefix("HTTP/1.0 200") || head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("text/event-stream"))
            #expect(!head.lowercased().contains("chunked"))
            #expect(text().contains(pad))
        }
    }
}
