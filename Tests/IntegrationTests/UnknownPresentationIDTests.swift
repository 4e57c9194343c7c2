import Testing

/// The status route's `{pid}` names no presentation however it is spelled: a client that
/// branches on `presentation_not_found` must not meet `not_found` ("no such route") for an
/// id longer than the server's ids, which only the length set apart.
@Suite("Unknown presentation ids")
struct UnknownPresentationIDTests {
    @Test("An id too long to be one of the server's is presentation_not_found, after the token and the session")
    func tooLong() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let long = "p" + String(repeating: "9", count: 70)
            try client.get(session.route("presentations/\(long)"), token: session.token)
                .expectProblem(404, "presentation_not_found")
            try client.get(session.route("presentations/\(long)?wait=1"), token: session.token)
                .expectProblem(404, "presentation_not_found")
            // Judged where an unknown short id is: the token first, then the session.
            try client.get(session.route("presentations/\(long)"), token: "wrong").expectProblem(401, "unauthorized")
            let otherSession = "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/presentations/\(long)"
            try client.get(otherSession, token: session.token).expectProblem(404, "session_not_found")
        }
    }
}
