import Testing

/// Bearer tokens: every session route needs its own session's token, and nothing else opens it.
@Suite("Authorization")
struct AuthTests {
    /// A session route with a well-formed body for it.
    struct Route: Sendable, CustomTestStringConvertible {
        let method: String
        let suffix: String
        let body: String?

        var testDescription: String { "\(method) …\(suffix.isEmpty ? "" : "/" + suffix)" }
    }

    static let routes: [Route] = [
        Route(method: "GET", suffix: "", body: nil),
        Route(method: "DELETE", suffix: "", body: nil),
        Route(method: "POST", suffix: "push", body: #"{"screen":"x"}"#),
        Route(method: "POST", suffix: "pop", body: nil),
        Route(method: "POST", suffix: "pop-to-root", body: "{}"),
        Route(method: "POST", suffix: "pop-to", body: #"{"screen":"s3"}"#),
        Route(method: "POST", suffix: "replace", body: #"{"screen":"x"}"#),
        Route(method: "POST", suffix: "present", body: #"{"screen":"x","style":"sheet"}"#),
        Route(method: "POST", suffix: "dismiss", body: nil),
        Route(method: "POST", suffix: "set-root", body: #"{"screen":"x"}"#),
        Route(method: "POST", suffix: "batch", body: #"{"operations":[{"op":"push","screen":"x"}]}"#),
        Route(method: "GET", suffix: "presentations/p4", body: nil),
        Route(method: "GET", suffix: "events", body: nil),
        Route(method: "GET", suffix: "events?after=1&wait=5", body: nil),
    ]

    /// A session with a pushed screen (s3) and a presentation (p4), so every route could succeed.
    private func prepared(_ client: HTTPConnection) throws -> CreatedSession {
        let session = try client.createSession()
        try client.post("push", to: session, json: ["screen": "detail"]).expectSession()
        try client.post("present", to: session, json: ["screen": "sheet", "style": "sheet"]).expectSession()
        return session
    }

    private func send(_ route: Route, to session: CreatedSession, on client: HTTPConnection, authorization: String?)
        throws -> ClientResponse
    {
        let headers = authorization.map { [("Authorization", $0)] } ?? []
        let path = session.route(route.suffix)
        guard let body = route.body else {
            return try client.request(route.method, path, headers: headers, body: route.method == "POST" ? [] : nil)
        }
        return try client.request(
            route.method, path, headers: headers + [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    @Test("Without a token every session route is 401 and nothing changes", arguments: routes)
    func withoutToken(route: Route) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try prepared(client)
            let before = try client.snapshot(of: session)
            try send(route, to: session, on: client, authorization: nil).expectProblem(401, "unauthorized")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("Without a token, headers no route could read are 401 too, not 400", arguments: routes)
    func withoutTokenUnreadableHeaders(route: Route) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try prepared(client)
            let before = try client.snapshot(of: session)
            let path = session.route(route.suffix)
            let body = route.body.map { Array($0.utf8) } ?? (route.method == "POST" ? [] : nil)
            let headers = [("Content-Type", "application/json")]
            // SECURITY.md: a request without a token learns only what is judged before any route.
            for unreadable in [("If-Match", "yesterday"), ("If-None-Match", "\"3"), ("Idempotency-Key", "a b")] {
                try client.request(route.method, path, headers: headers + [unreadable], body: body)
                    .expectProblem(401, "unauthorized")
            }
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("Another session's token is 401 on every route and reveals nothing", arguments: routes)
    func otherSessionsToken(route: Route) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try prepared(client)
            let intruder = try client.createSession()
            let before = try client.snapshot(of: session)
            let response = try send(route, to: session, on: client, authorization: "Bearer \(intruder.token)")
            response.expectProblem(401, "unauthorized")
            #expect(!response.text.contains("\"root\""), "the refusal leaks the tree: \(response.text)")
            #expect(!response.text.contains("s3"))
            #expect(!response.text.contains(session.id))
            #expect(try client.snapshot(of: session) == before)
            #expect(try client.fetch(intruder).rootPathIDs == ["s2"])
        }
    }

    @Test(
        "Malformed or foreign credentials are 401",
        arguments: ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "bearer-token", "Token abc"])
    func malformedCredentials(authorization: String) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.get(session.route(), headers: [("Authorization", authorization)]).expectProblem(
                401, "unauthorized")
        }
    }

    @Test(
        "The scheme is read in any case, and blanks around the token are ignored",
        arguments: ["Bearer %@", "bearer %@", "BEARER %@", "  Bearer   %@  ", "Bearer \t%@\t"])
    func bearerSpellings(template: String) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let authorization = template.replacingOccurrences(of: "%@", with: session.token)
            #expect(try client.get(session.route(), headers: [("Authorization", authorization)]).status == 200)
            try client.get(session.route(), headers: [("Authorization", "Bearer\t" + session.token)]).expectProblem(
                401, "unauthorized")
        }
    }

    @Test("A token that differs from the session's in one character is 401")
    func nearlyTheToken() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let last = session.token.last == "A" ? "B" : "A"
            let forged = String(session.token.dropLast()) + last
            try client.get(session.route(), token: forged).expectProblem(401, "unauthorized")
            try client.get(session.route(), token: session.token + "x").expectProblem(401, "unauthorized")
        }
    }

    @Test("A session's token opens only that session")
    func tokenOpensOnlyItsSession() throws {
        try withServer { server in
            let client = try server.connect()
            let first = try client.createSession(root: ["screen": "first"])
            let second = try client.createSession(root: ["screen": "second"])
            #expect(try client.fetch(first).rootPathNames == ["first"])
            try client.get(second.route(), token: first.token).expectProblem(401, "unauthorized")
            try client.delete(second.route(), token: first.token).expectProblem(401, "unauthorized")
            let stream = try EventStream(
                connection: try server.connect(), path: second.route("events"),
                headers: [("Authorization", "Bearer \(first.token)")])
            #expect(stream.head.status == 401)
            try client.get(second.route("events?access_token=\(first.token)")).expectProblem(401, "unauthorized")
            #expect(try client.fetch(second).rootPathNames == ["second"])
        }
    }

    /// The query's token is one token, as the header's is: with two, the server read the first
    /// while a proxy in front may have judged the request by the last (many frameworks keep
    /// the last of a repeated argument).
    @Test("Two ?access_token= arguments are refused as 400 invalid_query, whichever is the session's")
    func accessTokenTwice() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let token = "access_token=\(session.token)"
            for query in ["?\(token)&\(token)", "?\(token)&access_token=another", "?access_token=another&\(token)"] {
                let problem = try client.get(session.route("events") + query + "&after=1")
                    .expectProblem(400, "invalid_query")
                #expect((problem["detail"] as? String)?.contains("access_token") == true)
                let stream = try EventStream(connection: try server.connect(), path: session.route("events") + query)
                #expect(stream.head.status == 400)
            }
            #expect(try client.get(session.route("events") + "?" + token).status == 200)
        }
    }

    @Test("?access_token= is accepted on the events route only")
    func accessTokenOnlyForEvents() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let query = "?access_token=\(session.token)"
            try client.get(session.route() + query).expectProblem(401, "unauthorized")
            try client.post(session.route("push") + query, json: ["screen": "x"]).expectProblem(401, "unauthorized")
            try client.request("DELETE", session.route() + query).expectProblem(401, "unauthorized")
            #expect(try client.get(session.route("events") + query).status == 200)
            #expect(try client.fetch(session).int("revision") == 1)
        }
    }
}
