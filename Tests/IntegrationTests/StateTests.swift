import Foundation
import Testing

/// `POST …/set-state`: a screen shows one of its children by state and keeps its place, over
/// the real server.
@Suite("Screen states")
struct StateTests {
    @Test("The top screen takes a state with params; the tree, the event and the ETag follow")
    func setOnTop() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "order", "params": ["id": 7]]).expectSession(revision: 2)
            let json = try client.post("set-state", to: session, json: ["state": "loading"]).expectSession(revision: 3)
            let order = Wire.screen("s3", "order", params: ["id": 7], state: ["name": "loading", "params": [:]])
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox"), order])))

            let answer = try client.post(
                "set-state", to: session,
                json: ["state": "loaded", "params": ["items": [1, 2]], "transition": "crossfade", "screen": "s3"])
            let loaded = answer.expectSession(revision: 4)
            #expect(answer.header("ETag") == "\"4\"")
            let top = loaded.object("root")?.objects("path").last
            #expect(JSONText.canonical(top?["state"]) == JSONText.canonical(["name": "loaded", "params": ["items": [1, 2]]]))
            #expect(top?.string("id") == "s3", "the screen keeps its id")
            let events = try client.events(of: session, after: 2).map { $0.filter { $0.key != "time" } }
            #expect(
                JSONText.canonical(events)
                    == JSONText.canonical([
                        [
                            "revision": 3, "type": "state-set", "screen": "s3", "state": ["name": "loading", "params": [:]],
                            "transition": "automatic",
                        ],
                        [
                            "revision": 4, "type": "state-set", "screen": "s3",
                            "state": ["name": "loaded", "params": ["items": [1, 2]]], "transition": "crossfade",
                        ],
                    ]))
        }
    }

    @Test("A screen under a sheet changes state while covered, live to a subscriber, and keeps it when uncovered")
    func underPresentation() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession(revision: 2)
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            try client.post("set-state", to: session, json: ["state": "refreshed", "screen": "s2", "transition": "none"])
                .expectSession(revision: 3)
            let event = try stream.nextEvent().json()
            #expect(event.string("type") == "state-set" && event.string("screen") == "s2")
            #expect(event.string("transition") == "none")
            try client.post("dismiss", to: session, json: ["result": "sent"]).expectSession(revision: 4)
            let inbox = try client.fetch(session).object("root")?.objects("path").first
            #expect(JSONText.canonical(inbox?["state"]) == JSONText.canonical(["name": "refreshed", "params": [:]]))
            #expect(JSONText.canonical(inbox?["result"]) == JSONText.canonical(Wire.result(from: "p3", value: "sent", revision: 4)))
        }
    }

    @Test(
        "A refused set-state answers its problem and changes nothing",
        arguments: [
            (#"{"state": "x", "screen": "s9"}"#, 404, "screen_not_found", nil as String?),
            (#"{}"#, 422, "missing_field", "/state"),
            (#"{"state": null}"#, 422, "missing_field", "/state"),
            (#"{"state": 3}"#, 422, "invalid_field", "/state"),
            (#"{"state": ""}"#, 422, "invalid_state", nil),
            (#"{"state": "x", "params": []}"#, 422, "invalid_field", "/params"),
            (#"{"state": "x", "transition": "spin"}"#, 422, "invalid_field", "/transition"),
            (#"{"state": "x", "screen": 3}"#, 422, "invalid_field", "/screen"),
            (#"{"state": "x", "screen": ""}"#, 422, "invalid_field", "/screen"),
            (#"{"state": "x", "extra": true}"#, 422, "unknown_field", "/extra"),
            (#"{"state": "x", "from": "s9"}"#, 409, "top_changed", nil),
        ])
    func refused(body: String, status: Int, code: String, pointer: String?) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.expectRefused(
                "set-state", body: body, of: session, at: 1, status: status, code: code, pointer: pointer)
        }
    }

    @Test("While an alert is up a set-state is refused; in a batch it is a step like any other")
    func alertAndBatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            // Push a screen already loading, in one revision.
            let json = try client.post(
                "batch", to: session,
                json: ["operations": [["op": "push", "screen": "order"], ["op": "set-state", "state": "loading"]]]
            ).expectSession(revision: 2)
            #expect(json.object("root")?.objects("path").last?.object("state")?.string("name") == "loading")
            #expect(try client.events(of: session, after: 1).map { $0.string("type") } == ["pushed", "state-set"])

            let problem = try client.post(
                "batch", to: session, json: ["operations": [["op": "set-state", "state": "a"], ["op": "set-state", "state": ""]]]
            ).expectProblem(422, "invalid_state")
            #expect(problem.int("operation") == 1)

            try client.post(
                "present", to: session,
                json: ["style": "alert", "alert": ["title": "Sure?", "actions": [["id": "ok", "title": "OK"]]]]
            ).expectSession(revision: 3)
            let before = try client.snapshot(of: session)
            try client.post("set-state", to: session, json: ["state": "loaded"]).expectProblem(409, "blocked_by_alert")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("A state survives a restart with durable storage, and an export and import, events included")
    func durableAndExported() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer()
        var client = try HTTPConnection(port: port)
        let session = try client.createSession()
        try client.post("set-state", to: session, json: ["state": "loaded", "params": ["n": 1], "transition": "crossfade"])
            .expectSession(revision: 2)
        let before = try client.get(session.route(), token: session.token).body
        let eventsBefore = try client.events(of: session, after: 0)
        #expect(try server.terminate() == 0)

        (server, port) = try data.startServer()
        client = try HTTPConnection(port: port)
        let restored = try client.get(session.route(), token: session.token)
        #expect(restored.body == before)
        #expect(JSONText.canonical(try client.events(of: session, after: 0)) == JSONText.canonical(eventsBefore))
        let (copy, imported) = try client.exportAndImport(session)
        #expect(JSONText.canonical(imported["root"]) == JSONText.canonical(try restored.json()["root"]))
        #expect(try client.events(of: copy, after: 0).map { $0.string("type") } == ["root-set", "state-set"])
        #expect(try server.terminate() == 0)
    }
}
