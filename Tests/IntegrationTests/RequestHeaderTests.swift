import Testing

/// How the server reads a request's headers (HTTPHeaders, copied from libmicrohttpd into one
/// block): names in any case, among many fields, list fields over several lines, empty values.
@Suite("Request headers")
struct RequestHeaderTests {
    @Test("Header names match in any case, wherever they come among many fields")
    func namesInAnyCase() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            // Forty unrelated fields around the ones read, some with names of the same length.
            let noise = (0..<40).map { ("X-Noise-\($0)", String(repeating: "v", count: $0)) }
            let headers =
                noise.prefix(20)
                + [("aUtHoRiZaTiOn", "bEaReR \(session.token)"), ("if-match", "\"1\""), ("PREFER", "return=minimal")]
                + noise.suffix(20)
            let answer = try client.request(
                "POST", session.route("push"), headers: headers + [("content-type", "application/json")],
                body: Array(#"{"screen":"detail"}"#.utf8))
            answer.expectSession(revision: 2)
            #expect(answer.header("Preference-Applied") == "return=minimal")
            // The same If-Match again is stale now: it was read, not skipped.
            let stale = try client.request(
                "POST", session.route("push"), headers: headers + [("Content-Type", "application/json")],
                body: Array(#"{"screen":"detail"}"#.utf8))
            stale.expectProblem(412, "revision_mismatch")
        }
    }

    @Test("An HTTP/1.0 request with no header at all is answered, and the server carries on")
    func noHeaders() throws {
        try withServer { server in
            let bare = try server.connect()
            try bare.writeRaw(Array("GET /healthz HTTP/1.0\r\n\r\n".utf8))
            #expect(try bare.readResponse().status == 200)
            let client = try server.connect()
            let session = try client.createSession()
            #expect(try client.get(session.route(), token: session.token).status == 200)
        }
    }

    @Test("A list field sent over several lines is read whole, and an empty field is no value")
    func listsAndEmptyValues() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            // `Prefer` twice: the preference on the second line still counts.
            let answer = try client.post(
                "push", to: session, json: ["screen": "detail"],
                headers: [("Prefer", "respond-async"), ("X-Empty", ""), ("Prefer", "return=minimal")])
            answer.expectSession(revision: 2)
            #expect(answer.header("Preference-Applied") == "return=minimal")
            // An empty Authorization is no token at all.
            try client.get(session.route(), headers: [("Authorization", "")]).expectProblem(401, "unauthorized")
            #expect(try client.get(session.route(), token: session.token).status == 200)
        }
    }

    @Test("A push's body is taken as JSON by any JSON media type, with parameters, in any case, or with none")
    func jsonMediaTypes() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            // Each push is a new revision: 2 after the first, and so on.
            let types: [String?] = [
                "application/json", "application/json; charset=utf-8", "Application/JSON",
                "application/vnd.example+json", nil,
            ]
            for (index, type) in types.enumerated() {
                let answer = try client.post(
                    session.route("push"), text: #"{"screen":"detail"}"#, contentType: type, token: session.token)
                answer.expectSession(revision: index + 2)
            }
            // One byte off the common spelling is not JSON, and changes nothing.
            try client.post(
                session.route("push"), text: #"{"screen":"detail"}"#, contentType: "application/jsonx", token: session.token
            ).expectProblem(415, "unsupported_media_type")
            try client.get(session.route(), token: session.token).expectSession(revision: types.count + 1)
        }
    }

    /// RFC 9110 5.3: a field that is not a list may come once. With two Authorization lines the
    /// first won, so a proxy in front that judged the request by the last one (another token)
    /// and the server disagreed on whose request it was. Two Content-Types name no one type:
    /// the first won, whatever the second said.
    @Test("Authorization, Content-Type or Idempotency-Key sent twice is refused, and changes nothing")
    func singletonFieldsTwice() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let token = ("Authorization", "Bearer \(session.token)")
            for second in [token, ("Authorization", "Bearer another"), ("authorization", "")] {
                let problem = try client.request("GET", session.route(), headers: [token, second])
                    .expectProblem(400, "invalid_header")
                #expect((problem["detail"] as? String)?.contains("Authorization") == true)
                try client.request(
                    "POST", session.route("push"), headers: [token, ("Content-Type", "application/json"), second],
                    body: Array(#"{"screen":"detail"}"#.utf8)
                ).expectProblem(400, "invalid_header")
            }
            // Two idempotency keys name no one request to replay.
            try client.request(
                "POST", session.route("push"),
                headers: [token, ("Content-Type", "application/json"), ("Idempotency-Key", "a1"), ("Idempotency-Key", "a1")],
                body: Array(#"{"screen":"detail"}"#.utf8)
            ).expectProblem(400, "invalid_header")
            // The event stream's route reads the token the same way.
            try client.request("GET", session.route("events") + "?wait=0", headers: [token, token])
                .expectProblem(400, "invalid_header")
            for types in [["application/json", "text/plain"], ["application/json", "application/json"]] {
                try client.request(
                    "POST", session.route("push"), headers: [token] + types.map { ("Content-Type", $0) },
                    body: Array(#"{"screen":"detail"}"#.utf8)
                ).expectProblem(415, "unsupported_media_type")
                // A body the plain reader does not take goes the other way, and is refused the same.
                try client.request(
                    "POST", session.route("pop"), headers: [token] + types.map { ("Content-Type", $0) },
                    body: Array(#"{"result": [1, 2]}"#.utf8)
                ).expectProblem(415, "unsupported_media_type")
            }
            try client.get(session.route(), token: session.token).expectSession(revision: 1)
        }
    }

    /// `head` as bytes on the wire, with a NUL byte for each `\u{0}`.
    private static func wire(_ head: String) -> [UInt8] {
        head.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    }

    @Test("A NUL byte in a field's value cuts nothing short: the field is refused, not read as what comes before it")
    func nulInValue() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let heads = [
                // Last and among others: libmicrohttpd hands each value over as a C string.
                "GET \(session.route()) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(session.token)\u{0}junk\r\n\r\n",
                "GET \(session.route()) HTTP/1.1\r\nAuthorization: Bearer \(session.token)\u{0}junk\r\nHost: x\r\n\r\n",
                "GET \(session.route()) HTTP/1.1\nHost: x\nAuthorization: Bearer \(session.token)\u{0}Host: y\n\n",
                // A line folded onto the next, which libmicrohttpd 0.9.75 reads neither whole nor joined.
                "GET \(session.route()) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(session.token)\r\nX-Fold: a\r\n b\r\n\r\n",
            ]
            // A proxy that reads such a field otherwise may frame the request otherwise too: as
            // for a framing refused, nothing after it on the connection is read.
            let pipelined = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            for head in heads {
                let raw = try server.connect()
                try raw.writeRaw(Self.wire(head + pipelined))
                let status = try raw.readResponse().status
                #expect(status == 400, "\(head.debugDescription) was answered \(status)")
                #expect(raw.closedByServer(within: .seconds(2)), "the connection stayed open after \(head.debugDescription)")
            }
            // Bare LF line ends, spaces and tabs around values, an empty value: read as before.
            for head in [
                "GET \(session.route()) HTTP/1.1\nHost: x\nAuthorization:  Bearer \(session.token)\nX-Empty:\n\n",
                "GET \(session.route()) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(session.token)\r\nX-A: a \t\r\nX-B:\r\n\r\n",
            ] {
                let raw = try server.connect()
                try raw.writeRaw(Self.wire(head))
                #expect(try raw.readResponse().status == 200, "\(head.debugDescription) was not answered")
            }
        }
    }
}
