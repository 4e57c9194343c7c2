import Foundation
import Testing

/// Presenting every style, nesting, dismissing with and without results, alerts, and the
/// presentation status route with `?wait=`.
@Suite("Presentations")
struct PresentationTests {
    static var discardAlert: [String: Any] {
        [
            "title": "Discard draft?",
            "actions": [
                ["id": "discard", "title": "Discard", "role": "destructive"],
                ["id": "keep", "title": "Keep", "role": "cancel"],
                ["id": "later", "title": "Later"],
            ],
            "fields": [["id": "reason", "placeholder": "Why?", "secure": false], ["id": "pin", "secure": true]],
        ]
    }

    @Test(
        "Each style presents a new stack over the top screen", arguments: ["modal", "sheet", "fullScreen", "popover"])
    func presentStyle(style: String) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let json = try client.post(
                "present", to: session, json: ["screen": "compose", "style": style, "title": "New"]
            )
            .expectSession(revision: 2)
            #expect(json.string("presentation") == "p3")
            let presented = Wire.presentation(
                "p3", style: style, presentedBy: "s2",
                stack: Wire.stack("k4", [Wire.screen("s5", "compose", title: "New")]))
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox")], presentation: presented)))
            #expect(
                JSONText.canonical(json["top"])
                    == JSONText.canonical(Wire.top(stack: "k4", screen: "s5", presentation: "p3")))
        }
    }

    @Test("A presentation without navigation says so in the tree")
    func withoutNavigation() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let json = try client.post(
                "present", to: session, json: ["screen": "picker", "style": "popover", "navigation": false]
            ).expectSession()
            let presentation = json.object("root")?.object("presentation")
            #expect(presentation?["navigation"] as? Bool == false)
            #expect(presentation?.string("style") == "popover")
        }
    }

    @Test("Pushing while a stack is presented pushes onto the presented stack")
    func pushIntoPresentedStack() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            let json = try client.post("push", to: session, json: ["screen": "attachments"]).expectSession(revision: 3)
            let presented = Wire.presentation(
                "p3", style: "sheet", presentedBy: "s2",
                stack: Wire.stack("k4", [Wire.screen("s5", "compose"), Wire.screen("s6", "attachments")]))
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox")], presentation: presented)))
            #expect(
                JSONText.canonical(json["top"])
                    == JSONText.canonical(Wire.top(stack: "k4", screen: "s6", presentation: "p3")))
        }
    }

    @Test("Presentations nest: the second is presented by the first one's top screen")
    func nested() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            let json = try client.post("present", to: session, json: ["screen": "contacts", "style": "modal"])
                .expectSession(revision: 3)
            #expect(json.string("presentation") == "p6")
            let inner = Wire.presentation(
                "p6", style: "modal", presentedBy: "s5", stack: Wire.stack("k7", [Wire.screen("s8", "contacts")]))
            let outer = Wire.presentation(
                "p3", style: "sheet", presentedBy: "s2",
                stack: Wire.stack("k4", [Wire.screen("s5", "compose")], presentation: inner))
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox")], presentation: outer)))
            #expect(
                JSONText.canonical(json["top"])
                    == JSONText.canonical(Wire.top(stack: "k7", screen: "s8", presentation: "p6")))
        }
    }

    @Test("Dismiss without a presentation closes only the topmost one, as cancelled")
    func dismissTopmost() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            try client.post("present", to: session, json: ["screen": "contacts", "style": "modal"]).expectSession()
            let json = try client.post("dismiss", to: session).expectSession(revision: 4)
            let outer = Wire.presentation(
                "p3", style: "sheet", presentedBy: "s2", stack: Wire.stack("k4", [Wire.screen("s5", "compose")]))
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox")], presentation: outer)))
            #expect(
                JSONText.canonical(json["top"])
                    == JSONText.canonical(Wire.top(stack: "k4", screen: "s5", presentation: "p3")))
            try expectStatus(client, session, "p6", status: "cancelled", result: nil)
            try expectStatus(client, session, "p3", status: "presented", result: nil)
        }
    }

    @Test("Dismissing a named presentation sweeps those above it in one revision; only it gets the result")
    func dismissNamedSweeps() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            try client.post("present", to: session, json: ["screen": "contacts", "style": "modal"]).expectSession()
            try client.post("push", to: session, json: ["screen": "contact"]).expectSession(revision: 4)
            let json = try client.post("dismiss", to: session, json: ["presentation": "p3", "result": ["saved": true]])
                .expectSession(revision: 5)
            let result = Wire.result(from: "p3", value: ["saved": true], revision: 5)
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox", result: result)])))
            #expect(JSONText.canonical(json["top"]) == JSONText.canonical(Wire.top(stack: "k1", screen: "s2")))
            try expectStatus(client, session, "p3", status: "dismissed", result: ["saved": true])
            try expectStatus(client, session, "p6", status: "cancelled", result: nil)
            let events = try client.events(of: session, after: 4)
            #expect(events.allSatisfy { $0.int("revision") == 5 })
            let byType = Dictionary(grouping: events) { $0.string("type") ?? "" }
            #expect(events.count == 3)
            #expect(byType["cancelled"]?.first?.string("presentation") == "p6")
            #expect(byType["cancelled"]?.first?.string("presentedBy") == "s5")
            #expect(byType["dismissed"]?.first?.string("presentation") == "p3")
            #expect(byType["dismissed"]?.first?.string("presentedBy") == "s2")
            #expect(byType["result"]?.first?.string("screen") == "s2")
            #expect(byType["result"]?.first?.string("from") == "p3")
        }
    }

    @Test("A result from a dismissed presentation goes to the screen that presented it")
    func resultToPresenter() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "thread"]).expectSession()
            try client.post("present", to: session, json: ["screen": "reply", "style": "sheet"]).expectSession()
            try client.post("push", to: session, json: ["screen": "format"]).expectSession()
            let json = try client.post("dismiss", to: session, json: ["result": "sent"]).expectSession(revision: 5)
            let result = Wire.result(from: "p4", value: "sent", revision: 5)
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(
                        Wire.stack("k1", [Wire.screen("s2", "inbox"), Wire.screen("s3", "thread", result: result)])))
            try expectStatus(client, session, "p4", status: "dismissed", result: "sent")
        }
    }

    @Test("Dismissing without a result cancels: no result anywhere, status cancelled")
    func cancelled() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "modal"]).expectSession()
            let json = try client.post("dismiss", to: session, json: ["presentation": "p3"]).expectSession(revision: 3)
            #expect(
                JSONText.canonical(json["root"]) == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox")])))
            try expectStatus(client, session, "p3", status: "cancelled", result: nil)
            let events = try client.events(of: session, after: 2)
            #expect(events.map { $0.string("type") } == ["cancelled"])
        }
    }

    @Test("An alert is presented with its actions and fields, and top names it")
    func presentAlert() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let json = try client.post("present", to: session, json: ["style": "alert", "alert": Self.discardAlert])
                .expectSession(revision: 2)
            #expect(json.string("presentation") == "p3")
            let alert: [String: Any] = [
                "title": "Discard draft?", "message": Wire.null,
                "actions": [
                    ["id": "discard", "title": "Discard", "role": "destructive"],
                    ["id": "keep", "title": "Keep", "role": "cancel"],
                    ["id": "later", "title": "Later", "role": "default"],
                ],
                "fields": [
                    ["id": "reason", "placeholder": "Why?", "secure": false],
                    ["id": "pin", "placeholder": Wire.null, "secure": true],
                ],
            ]
            let expected = Wire.stack(
                "k1", [Wire.screen("s2", "inbox")], presentation: Wire.alert("p3", presentedBy: "s2", alert: alert))
            #expect(JSONText.canonical(json["root"]) == JSONText.canonical(expected))
            #expect(
                JSONText.canonical(json["top"]) == JSONText.canonical(Wire.top(stack: "k1", screen: "s2", alert: "p3")))
        }
    }

    @Test("An alert answered with an action and fields hands the answer to its presenter")
    func answerAlert() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["style": "alert", "alert": Self.discardAlert])
                .expectSession()
            let answer: [String: Any] = ["action": "discard", "fields": ["reason": "typo", "pin": "1234"]]
            let json = try client.post("dismiss", to: session, json: ["result": answer]).expectSession(revision: 3)
            let result = Wire.result(from: "p3", value: answer, revision: 3)
            #expect(
                JSONText.canonical(json["root"])
                    == JSONText.canonical(Wire.stack("k1", [Wire.screen("s2", "inbox", result: result)])))
            #expect(JSONText.canonical(json["top"]) == JSONText.canonical(Wire.top(stack: "k1", screen: "s2")))
            try expectStatus(client, session, "p3", status: "dismissed", result: answer, style: "alert")
        }
    }

    @Test("An alert answered with an unknown action is refused with 422 and stays up")
    func unknownAction() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["style": "alert", "alert": Self.discardAlert])
                .expectSession()
            let before = try client.snapshot(of: session)
            try client.post("dismiss", to: session, json: ["result": ["action": "archive"]]).expectProblem(
                422, "unknown_action")
            #expect(try client.snapshot(of: session) == before)
            try expectStatus(client, session, "p3", status: "presented", result: nil, style: "alert")
        }
    }

    @Test("The status route names the presentation, its style, presenter, status, result and last emitted value")
    func statusShape() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "fullScreen"]).expectSession()
            let response = try client.get(session.route("presentations/p3"), token: session.token)
            #expect(response.status == 200)
            let expected: [String: Any] = [
                "id": "p3", "style": "fullScreen", "presentedBy": "s2", "status": "presented", "result": Wire.null,
                "emitted": Wire.null,
            ]
            #expect(JSONText.canonical(try response.json()) == JSONText.canonical(expected))
            let unknown = try client.get(session.route("presentations/p99"), token: session.token)
            unknown.expectProblem(404, "presentation_not_found")
            // The status route reads closed presentations too: its detail must not say "open".
            let detail = try unknown.json().string("detail") ?? ""
            #expect(detail.contains("no outcome of it is kept"), "\(detail)")
            #expect(!detail.hasPrefix("no open presentation"), "\(detail)")
        }
    }

    @Test("?wait= holds the status request until another connection dismisses the presentation")
    func waitReturnsWhenDismissed() throws {
        try withServer { server in
            let waiter = try server.connect()
            let other = try server.connect()
            let session = try other.createSession()
            try other.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            let started = ContinuousClock.now
            try waiter.write(
                "GET", session.route("presentations/p3?wait=10"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(!waiter.hasData(within: .milliseconds(300)), "answered before anything changed")
            try other.post("dismiss", to: session, json: ["result": ["to": ["ana@example.com"]]]).expectSession(
                revision: 3)
            let response = try waiter.readResponse(timeout: .seconds(3))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(response.status == 200)
            let expected: [String: Any] = [
                "id": "p3", "style": "sheet", "presentedBy": "s2", "status": "dismissed",
                "result": ["to": ["ana@example.com"]], "emitted": Wire.null,
            ]
            #expect(JSONText.canonical(try response.json()) == JSONText.canonical(expected))
        }
    }

    @Test("?wait= ends with status presented when the time is up and nothing happened")
    func waitTimesOut() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            let started = ContinuousClock.now
            let response = try client.get(
                session.route("presentations/p3?wait=1"), token: session.token, timeout: .seconds(5))
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(4))
            #expect(response.status == 200)
            #expect(try response.json().string("status") == "presented")
        }
    }

    @Test("?wait= on a presentation already closed answers at once")
    func waitOnClosed() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"]).expectSession()
            try client.post("dismiss", to: session, json: ["result": 1]).expectSession()
            let started = ContinuousClock.now
            let response = try client.get(session.route("presentations/p3?wait=30"), token: session.token)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(try response.json().string("status") == "dismissed")
            #expect(try response.json()["result"] as? Int == 1)
        }
    }

    private func expectStatus(
        _ client: HTTPConnection,
        _ session: CreatedSession,
        _ presentation: String,
        status: String,
        result: Any?,
        style: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let response = try client.get(session.route("presentations/\(presentation)"), token: session.token)
        #expect(response.status == 200, "body: \(response.text)", sourceLocation: sourceLocation)
        let json = try response.json()
        #expect(json.string("id") == presentation, sourceLocation: sourceLocation)
        #expect(json.string("status") == status, sourceLocation: sourceLocation)
        #expect(JSONText.canonical(json["result"]) == JSONText.canonical(result), sourceLocation: sourceLocation)
        if let style {
            #expect(json.string("style") == style, sourceLocation: sourceLocation)
        }
    }
}
