import Testing

/// Percent-encoded paths and query arguments, sent raw so no client tidies them first.
@Suite("Percent-decoding")
struct PathDecodingTests {
    @Test("Escapes decode as usual: %74 is t, %2F a slash")
    func decodes() throws {
        try withServer { server in
            let client = try server.connect()
            #expect(try client.get("/heal%74hz").status == 200)
            let session = try client.createSession()
            let encoded = session.route().replacingOccurrences(of: "/v1/sessions/", with: "/v1%2Fsessions/")
            #expect(try client.get(encoded, token: session.token).status == 200)
        }
    }

    @Test("An encoded NUL cuts nothing short: it names no route, session or token")
    func encodedNUL() throws {
        try withServer { server in
            let client = try server.connect()
            try client.get("/healthz%00").expectProblem(404, "not_found")
            let session = try client.createSession()
            try client.get(session.route() + "%00junk", token: session.token).expectProblem(404, "session_not_found")
            try client.post(session.route("push") + "%00", text: #"{"screen":"x"}"#, token: session.token)
                .expectProblem(404, "not_found")
            try client.get(session.route("events?access_token=\(session.token)%00")).expectProblem(401, "unauthorized")
            #expect(try client.snapshot(of: session).revision == 1)
        }
    }
}
