import Testing

/// How a request's body is framed (RFC 9112, section 6) and which host it is for (3.2): where
/// libmicrohttpd 0.9.75 would guess, the server refuses, so that a proxy in front and this
/// server never disagree on where one request ends and the next begins.
@Suite("Request framing")
struct RequestFramingTests {
    /// A request with its headers (`Host`, a bearer token, JSON) and no framing yet.
    private static func head(_ path: String, token: String, framing: String, version: String = "HTTP/1.1") -> String {
        "POST \(path) \(version)\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\n\(framing)\r\n"
    }

    /// A read any client may pipeline after a request; it must not be answered when the
    /// request before it was refused for its framing.
    private static let pipelined = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// RFC 9112 6.3: two different lengths make the framing invalid, and a server MUST answer
    /// 400 and close. libmicrohttpd took the first, so the rest of the body after a shorter
    /// first one was read as the next request, a request smuggled past any proxy that took
    /// the other length.
    @Test("Two different Content-Lengths are 400 and close the connection; the same one twice is read")
    func twoContentLengths() throws {
        try withServer { server in
            let session = try server.connect().createSession()
            let body = #"{"screen":"b"}"#
            for framing in ["Content-Length: 14\r\nContent-Length: 3\r\n", "Content-Length: 3\r\nContent-Length: 14\r\n"] {
                let client = try server.connect()
                try client.writeRaw(
                    Array((Self.head(session.route("push"), token: session.token, framing: framing) + body + Self.pipelined).utf8))
                try client.readResponse(to: "POST").expectProblem(400, "invalid_header")
                #expect(client.closedByServer(within: .seconds(2)), "nothing after it is read: \(framing)")
            }
            #expect(try server.connect().snapshot(of: session).revision == 1)
            let same = try server.connect()
            try same.writeRaw(
                Array((Self.head(session.route("push"), token: session.token, framing: "Content-Length: 14\r\nContent-Length: 14\r\n") + body).utf8))
            try same.readResponse(to: "POST").expectSession(revision: 2)
        }
    }

    /// RFC 9112 6.1: a request with both may be refused or read by its chunks, but either way
    /// the server MUST close the connection after answering; libmicrohttpd read the chunks and
    /// kept it open.
    @Test("Transfer-Encoding with Content-Length is refused, and the connection closed")
    func chunkedWithLength() throws {
        try withServer { server in
            let session = try server.connect().createSession()
            let client = try server.connect()
            let framing = "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n"
            try client.writeRaw(
                Array((Self.head(session.route("push"), token: session.token, framing: framing)
                    + "e\r\n{\"screen\":\"b\"}\r\n0\r\n\r\n" + Self.pipelined).utf8))
            try client.readResponse(to: "POST").expectProblem(400, "invalid_header")
            #expect(client.closedByServer(within: .seconds(2)))
            #expect(try server.connect().snapshot(of: session).revision == 1)
        }
    }

    /// RFC 9112 6.3: a transfer coding other than chunked, or chunked not last, leaves the
    /// length unknown, and the server MUST answer 400 and close. libmicrohttpd waited for the
    /// client to close, and never answered.
    @Test(
        "A transfer coding other than chunked is 400 at once",
        arguments: ["Transfer-Encoding: identity\r\nContent-Length: 14\r\n", "Transfer-Encoding: gzip, chunked\r\n"])
    func otherCodings(framing: String) throws {
        try withServer { server in
            let session = try server.connect().createSession()
            let client = try server.connect(timeout: .seconds(2))
            try client.writeRaw(
                Array((Self.head(session.route("push"), token: session.token, framing: framing) + "e\r\n{\"screen\":\"b\"}\r\n0\r\n\r\n").utf8))
            try client.readResponse(to: "POST").expectProblem(400, "invalid_header")
            #expect(client.closedByServer(within: .seconds(2)))
            #expect(try server.connect().snapshot(of: session).revision == 1)
        }
    }

    /// RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host, or with
    /// more than one. HTTP/1.0 has no such rule (RequestHeaderTests sends one with no header).
    @Test(
        "An HTTP/1.1 request without a Host, or with two, is 400",
        arguments: ["", "Host: a\r\nHost: b\r\n"])
    func host(fields: String) throws {
        try withServer { server in
            let client = try server.connect()
            try client.writeRaw(Array("GET /healthz HTTP/1.1\r\n\(fields)\r\n".utf8))
            try client.readResponse().expectProblem(400, "invalid_header")
        }
    }

    /// Sends `framing` and `body` in a push to a new session, then a pipelined read; expects
    /// 400 `invalid_header`, the connection closed with nothing after it answered, and the
    /// session as it was.
    private static func expectRefused(
        framing: String, body: String, version: String = "HTTP/1.1", on server: TestServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let session = try server.connect().createSession()
        let client = try server.connect(timeout: .seconds(2))
        let head = Self.head(session.route("push"), token: session.token, framing: framing, version: version)
        try client.writeRaw(Array((head + body + Self.pipelined).utf8))
        try client.readResponse(to: "POST").expectProblem(400, "invalid_header", sourceLocation: sourceLocation)
        #expect(
            client.closedByServer(within: .seconds(2)), "nothing after it is read: \(framing.debugDescription)",
            sourceLocation: sourceLocation)
        #expect(try server.connect().snapshot(of: session).revision == 1, sourceLocation: sourceLocation)
    }

    /// RFC 9112 5.1: a server MUST answer 400 to a request with whitespace between a field's
    /// name and its colon. libmicrohttpd kept the space as part of the name, so
    /// `Content-Length : 14` framed no body here, and the body was read as the next request
    /// (one a proxy that trimmed the space had sent as this request's body). A name that ends
    /// in another byte no name holds (a vertical tab) is no field name either (RFC 9110 5.1):
    /// RFC 9112 2.2 has such a message answered 400, and the connection closed.
    @Test(
        "Whitespace between a field's name and its colon is 400 and closes the connection",
        arguments: [
            "Content-Length : 14\r\n", "Content-Length\t: 14\r\n", "Content-Length\u{0B}: 14\r\n",
            "Content-Length: 14\r\nX-Other : b\r\n", "Content-Length: 14\r\nHost : y\r\n",
        ])
    func whitespaceBeforeColon(framing: String) throws {
        try withServer { server in
            try Self.expectRefused(framing: framing, body: #"{"screen":"b"}"#, on: server)
        }
    }

    /// RFC 9112 2.2 and RFC 9110 5.5: a CR not followed by LF in the request line or a field
    /// MUST make it invalid (or be read as a space). libmicrohttpd kept it in the value, so
    /// `X-A: a<CR>Content-Length: 14` framed no body here, but 14 bytes for a proxy that ends
    /// a line at a bare CR: the body was read as the next request.
    @Test(
        "A bare CR in a field is 400 and closes the connection",
        arguments: ["X-A: a\rContent-Length: 14\r\n", "Content-Length: 14\r\nX-A: a\rb\r\n", "Content-Length: 14\r\nX-A: a\r\r\n"])
    func bareCR(framing: String) throws {
        try withServer { server in
            try Self.expectRefused(framing: framing, body: #"{"screen":"b"}"#, on: server)
        }
    }

    /// RFC 9112 6.1: an HTTP/1.0 message with a Transfer-Encoding MUST be treated as if its
    /// framing were faulty, and the connection closed after it. libmicrohttpd read its chunks
    /// and, asked for keep-alive, kept the connection open for the next request, which a
    /// proxy in HTTP/1.0 terms would have read as part of this one.
    @Test("Transfer-Encoding in HTTP/1.0 is 400 and closes the connection")
    func codingInHTTP10() throws {
        try withServer { server in
            try Self.expectRefused(
                framing: "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n",
                body: "e\r\n{\"screen\":\"b\"}\r\n0\r\n\r\n", version: "HTTP/1.0", on: server)
        }
    }

    /// RFC 9112 3.2: a server MUST answer 400 to a request whose Host holds an invalid value
    /// (RFC 9110 7.2: `uri-host [ ":" port ]`); libmicrohttpd took any.
    @Test(
        "A Host that is no host and port is 400",
        arguments: ["a b", "a/b", "user@a", "a:8x", "[::1", "a\u{01}"])
    func invalidHost(value: String) throws {
        try withServer { server in
            let client = try server.connect()
            try client.writeRaw(Array("GET /healthz HTTP/1.1\r\nHost: \(value)\r\n\r\n".utf8))
            try client.readResponse().expectProblem(400, "invalid_header")
        }
    }

    @Test(
        "A Host that is a host and port is read, with spaces after it",
        arguments: ["", "example.com", "127.0.0.1:8080", "[::1]:80", "a-b.c_d~e%41!$&'()*+,;=:", "x \t", "[v1.x:y]"])
    func validHost(value: String) throws {
        try withServer { server in
            let client = try server.connect()
            try client.writeRaw(Array("GET /healthz HTTP/1.1\r\nHost: \(value)\r\n\r\n".utf8))
            #expect(try client.readResponse().status == 200)
        }
    }

    /// An IPv6 literal with a zone: RFC 6874's `%25` form, and the bare `%` Python's urllib
    /// sends for `http://[fe80::1%25eth0]:8080/` (checked against a socket: `Host:
    /// [fe80::...%eth0]:8080`), as draft-ietf-6man-rfc6874bis spells it. Both were answered before
    /// the Host was checked, and refusing them shut out a client on a link-local address.
    @Test(
        "A Host that is an IPv6 literal with a zone is read",
        arguments: ["[fe80::1%25eth0]", "[fe80::1%25eth0]:8080", "[fe80::1%eth0]:8080", "[fe80::1%251]"])
    func hostWithZone(value: String) throws {
        try withServer { server in
            let client = try server.connect()
            try client.writeRaw(Array("GET /healthz HTTP/1.1\r\nHost: \(value)\r\n\r\n".utf8))
            #expect(try client.readResponse().status == 200, "Host: \(value)")
        }
    }
}
