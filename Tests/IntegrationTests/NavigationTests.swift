import Testing

/// Push, pop, pop-to-root, pop-to, replace and set-root on the wire, asserted on the whole tree.
@Suite("Navigation")
struct NavigationTests {
    private static func expectTree(
        _ session: [String: Any],
        root: [String: Any],
        top: [String: Any],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(JSONText.canonical(session["root"]) == JSONText.canonical(root), sourceLocation: sourceLocation)
        #expect(JSONText.canonical(session["top"]) == JSONText.canonical(top), sourceLocation: sourceLocation)
    }

    @Test("Push adds a screen with a new id on the top stack and makes it the top")
    func push() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let pushed = try client.post(
                "push", to: session, json: ["screen": "message", "title": "Re: lunch", "params": ["id": 7]])
            let json = pushed.expectSession(revision: 2)
            Self.expectTree(
                json,
                root: Wire.stack(
                    "k1",
                    [Wire.screen("s2", "inbox"), Wire.screen("s3", "message", title: "Re: lunch", params: ["id": 7])]),
                top: Wire.top(stack: "k1", screen: "s3"))
            #expect(json["presentation"] == nil)
        }
    }

    @Test("Params come back exactly as sent, nested values included")
    func paramsRoundTrip() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let params: [String: Any] = [
                "n": 1.5, "big": 9_007_199_254_740_993 as Int, "list": [1, "two", Wire.null, false],
                "nested": ["a": ["b": "ü 😀 \"quoted\" \\ /"]], "empty": [:] as [String: Any],
            ]
            let json = try client.post("push", to: session, json: ["screen": "detail", "params": params])
                .expectSession()
            let path = json.object("root")?.objects("path") ?? []
            #expect(JSONText.canonical(path.last?["params"]) == JSONText.canonical(params))
        }
    }

    @Test("Pop removes the top screen; without a result the uncovered screen's result stays null")
    func pop() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let popped = try client.post("pop", to: session).expectSession(revision: 3)
            Self.expectTree(
                popped, root: Wire.stack("k1", [Wire.screen("s2", "inbox")]), top: Wire.top(stack: "k1", screen: "s2"))
        }
    }

    @Test("Pop with a result hands it to the screen on top afterwards, with its revision")
    func popWithResult() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "list"]).expectSession(revision: 2)
            try client.post("push", to: session, json: ["screen": "picker"]).expectSession(revision: 3)
            let popped = try client.post("pop", to: session, json: ["result": ["picked": [1, 2], "starred": true]])
            let json = popped.expectSession(revision: 4)
            let result = Wire.result(from: "s4", value: ["picked": [1, 2], "starred": true], revision: 4)
            Self.expectTree(
                json,
                root: Wire.stack("k1", [Wire.screen("s2", "inbox"), Wire.screen("s3", "list", result: result)]),
                top: Wire.top(stack: "k1", screen: "s3"))
        }
    }

    @Test("Pop-to-root leaves only the root screen, in one revision, with an empty or {} body")
    func popToRoot() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for name in ["a", "b", "c"] {
                try client.post("push", to: session, json: ["screen": name]).expectSession()
            }
            let json = try client.post("pop-to-root", to: session, json: [:] as [String: Any]).expectSession(
                revision: 5)
            Self.expectTree(
                json, root: Wire.stack("k1", [Wire.screen("s2", "inbox")]), top: Wire.top(stack: "k1", screen: "s2"))
            try client.post("push", to: session, json: ["screen": "d"]).expectSession(revision: 6)
            #expect(try client.post("pop-to-root", to: session).expectSession(revision: 7).rootPathIDs == ["s2"])
        }
    }

    @Test("Pop-to keeps the named screen and everything under it")
    func popTo() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for name in ["a", "b", "c"] {
                try client.post("push", to: session, json: ["screen": name]).expectSession()
            }
            let json = try client.post("pop-to", to: session, json: ["screen": "s3"]).expectSession(revision: 5)
            Self.expectTree(
                json, root: Wire.stack("k1", [Wire.screen("s2", "inbox"), Wire.screen("s3", "a")]),
                top: Wire.top(stack: "k1", screen: "s3"))
        }
    }

    @Test("Replace swaps the top screen for one with a new id")
    func replace() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "draft"]).expectSession()
            let json = try client.post("replace", to: session, json: ["screen": "sent", "title": "Sent"]).expectSession(
                revision: 3)
            Self.expectTree(
                json, root: Wire.stack("k1", [Wire.screen("s2", "inbox"), Wire.screen("s4", "sent", title: "Sent")]),
                top: Wire.top(stack: "k1", screen: "s4"))
        }
    }

    @Test("Replacing the root screen keeps a one-screen stack under a new id")
    func replaceRoot() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let json = try client.post("replace", to: session, json: ["screen": "home"]).expectSession(revision: 2)
            Self.expectTree(
                json, root: Wire.stack("k1", [Wire.screen("s3", "home")]), top: Wire.top(stack: "k1", screen: "s3"))
        }
    }

    @Test("Set-root replaces the whole tree and cancels what was presented")
    func setRoot() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession()
            let presented = try client.post("present", to: session, json: ["screen": "compose", "style": "sheet"])
            #expect(presented.expectSession().string("presentation") == "p4")
            let json = try client.post("set-root", to: session, json: ["screen": "home", "params": ["tab": 2]])
                .expectSession(
                    revision: 4)
            Self.expectTree(
                json, root: Wire.stack("k7", [Wire.screen("s8", "home", params: ["tab": 2])]),
                top: Wire.top(stack: "k7", screen: "s8"))
            let status = try client.get(session.route("presentations/p4"), token: session.token)
            #expect(status.status == 200)
            #expect(try status.json().string("status") == "cancelled")
        }
    }

    @Test("Ids are never reused: a screen pushed after a pop gets a fresh id")
    func idsAreNotReused() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            #expect(
                try client.post("push", to: session, json: ["screen": "a"]).expectSession().rootPathIDs == ["s2", "s3"])
            try client.post("pop", to: session).expectSession()
            #expect(
                try client.post("push", to: session, json: ["screen": "a"]).expectSession().rootPathIDs == ["s2", "s4"])
        }
    }
}
