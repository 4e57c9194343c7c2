import Testing

/// `Prefer: return=minimal` on changes: the answer without the tree, over the real server.
@Suite("Prefer: return=minimal")
struct ReturnPreferenceTests {
    static let minimal = [("Prefer", "return=minimal")]
    static let summaryKeys: Set = ["id", "revision", "createdAt", "updatedAt", "top"]

    @Test("A push preferring minimal gets the summary of the session it made, marked as applied")
    func minimalPush() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try client.post("push", to: session, json: ["screen": "detail"], headers: Self.minimal)
            let summary = answer.expectSession(revision: 2)
            #expect(answer.header("Preference-Applied") == "return=minimal")
            #expect(Set(summary.keys) == Self.summaryKeys)
            let whole = try client.fetch(session)
            for key in Self.summaryKeys where key != "top" {
                #expect(summary[key] as? String == whole[key] as? String)
            }
            #expect(summary.object("top")?.string("screen") == whole.object("top")?.string("screen"))
            #expect(summary.object("top")?.string("stack") == whole.object("top")?.string("stack"))
            #expect(whole.object("root")?.objects("path").map { $0.string("screen") } == ["inbox", "detail"])
        }
    }

    @Test("A present preferring minimal names the new presentation, as the whole answer does")
    func minimalPresent() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try client.post(
                "present", to: session, json: ["style": "sheet", "screen": "compose"], headers: Self.minimal)
            let summary = answer.expectSession(revision: 2)
            #expect(Set(summary.keys) == Self.summaryKeys.union(["presentation"]))
            let presentation = try #require(summary.string("presentation"))
            #expect(summary.object("top")?.string("presentation") == presentation)
            let whole = try client.fetch(session)
            #expect(whole.object("root")?.object("presentation")?.string("id") == presentation)
        }
    }

    @Test("A batch preferring minimal is one revision and a summary")
    func minimalBatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let operations: [[String: Any]] = [["op": "push", "screen": "a"], ["op": "push", "screen": "b"]]
            let answer = try client.post("batch", to: session, json: ["operations": operations], headers: Self.minimal)
            let summary = answer.expectSession(revision: 2)
            #expect(Set(summary.keys) == Self.summaryKeys)
            #expect(answer.header("Preference-Applied") == "return=minimal")
            #expect(try client.fetch(session).object("root")?.objects("path").count == 3)
        }
    }

    @Test(
        "Without a minimal preference the answer is the whole session and unmarked",
        arguments: [
            nil, "return=representation", "return", "return=", "returns=minimal", "minimal",
            "return=representation, return=minimal", "respond-async; wait=10",
        ])
    func wholeSession(prefer: String?) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let headers = prefer.map { [("Prefer", $0)] } ?? []
            let answer = try client.post("push", to: session, json: ["screen": "detail"], headers: headers)
            let whole = answer.expectSession(revision: 2)
            #expect(whole["root"] != nil)
            #expect(answer.header("Preference-Applied") == nil)
        }
    }

    @Test(
        "Spellings of return=minimal that RFC 7240 allows are honoured",
        arguments: [
            "return=minimal", "RETURN=Minimal", "return = minimal", "return=\"minimal\"", "respond-async, return=minimal",
            "return=minimal; foo=bar", "handling=lenient,return=minimal,return=representation",
        ])
    func minimalSpellings(prefer: String) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try client.post("push", to: session, json: ["screen": "detail"], headers: [("Prefer", prefer)])
            #expect(answer.expectSession(revision: 2)["root"] == nil)
            #expect(answer.header("Preference-Applied") == "return=minimal")
        }
    }

    @Test("Two Prefer fields: the first return preference counts")
    func repeatedField() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try client.post(
                "push", to: session, json: ["screen": "detail"],
                headers: [("Prefer", "wait=5"), ("Prefer", "return=minimal"), ("Prefer", "return=representation")])
            #expect(answer.expectSession(revision: 2)["root"] == nil)
        }
    }

    @Test("An idempotent retry may prefer either shape; both describe the first change")
    func idempotentReplays() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let key = ("Idempotency-Key", "tap-1")
            let body = #"{"screen":"detail"}"#
            let first = try client.post(session.route("push"), text: body, token: session.token, headers: [key] + Self.minimal)
            let summary = first.expectSession(revision: 2)
            #expect(summary["root"] == nil)
            #expect(first.header("Preference-Applied") == "return=minimal")
            try client.post("push", to: session, json: ["screen": "later"]).expectSession(revision: 3)

            let whole = try client.post(session.route("push"), text: body, token: session.token, headers: [key])
            #expect(whole.header("Idempotent-Replayed") == "true")
            #expect(whole.header("Preference-Applied") == nil)
            let replayed = whole.expectSession(revision: 2)
            #expect(replayed.object("root")?.objects("path").map { $0.string("screen") } == ["inbox", "detail"])

            let again = try client.post(session.route("push"), text: body, token: session.token, headers: [key] + Self.minimal)
            #expect(again.header("Idempotent-Replayed") == "true")
            #expect(again.header("Preference-Applied") == "return=minimal")
            #expect(again.body == first.body)
            #expect(try client.fetch(session)["revision"] as? Int == 3)
        }
    }

    @Test("A refused change preferring minimal is the same problem, and changes nothing")
    func refusedChange() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let answer = try client.post("pop", to: session, headers: Self.minimal)
            answer.expectProblem(409, "cannot_pop_root")
            #expect(answer.header("Preference-Applied") == nil)
            #expect(try client.snapshot(of: session) == before)
        }
    }
}
