import Testing

/// How a request's body is framed (RFC 9112, section 6): where libmicrohttpd 0.9.75 would
/// guess, the server refuses, so that a proxy in front and this server never disagree on
/// where one request ends and the next begins.
@Suite("Request framing")
struct RequestFramingTests {
    /// A request with its headers (`Host`, a bearer token, JSON) and no framing yet.
    private static func head(_ path: String, token: String, framing: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
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
}
