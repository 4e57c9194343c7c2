import Testing

/// RFC 9110 8.8.3 and 13.1: an entity tag is opaque to clients, so one the server never made
/// (`"abc"`, a tag from another server behind the same name) is a tag that matches nothing,
/// not a malformed header.
@Suite("Entity tags the server never made")
struct ForeignTagTests {
    @Test("If-Match with a well-formed foreign tag is 412 with the current revision and changes nothing")
    func ifMatchForeignTag() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            let before = try client.get(session.route(), token: session.token).body
            for tag in [#""abc""#, #""007""#, #""2x""#, #""99999999999999999999""#] {
                let refused = try client.post(
                    "push", to: session, json: ["screen": "b"], headers: [("If-Match", tag)])
                refused.expectProblem(412, "revision_mismatch")
                #expect(refused.header("ETag") == #""2""#, "\(tag)")
                try client.get(session.route(), token: session.token, headers: [("If-Match", tag)])
                    .expectProblem(412, "revision_mismatch")
                try client.delete(session.route(), token: session.token, headers: [("If-Match", tag)])
                    .expectProblem(412, "revision_mismatch")
            }
            #expect(try client.get(session.route(), token: session.token).body == before)
            // A list holding the current tag beside a foreign one matches.
            try client.post("push", to: session, json: ["screen": "b"], headers: [("If-Match", #""abc", "2""#)])
                .expectSession(revision: 3)
        }
    }

    @Test("If-None-Match with a foreign tag gets the session; what is no tag at all is still 400")
    func ifNoneMatchForeignTag() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.get(session.route(), token: session.token, headers: [("If-None-Match", #""abc""#)])
                .expectSession(revision: 1)
            #expect(
                try client.get(session.route(), token: session.token, headers: [("If-None-Match", #""abc", "1""#)])
                    .status == 304)
            try client.get(session.route(), token: session.token, headers: [("If-None-Match", #""open"#)])
                .expectProblem(400, "invalid_header")
            try client.post("push", to: session, json: ["screen": "a"], headers: [("If-Match", "yesterday")])
                .expectProblem(400, "invalid_header")
        }
    }
}
