import Testing

/// HEAD on the events route, where one path answers either JSON or a stream of Server-Sent
/// Events.
@Suite("The events route's HEAD")
struct EventStreamHeadTests {
    /// RFC 9110 9.3.2: a HEAD answer has no content. libmicrohttpd 0.9.75 wrote a stream's
    /// last chunk (`0\r\n\r\n`) after the headers of one, and the next answer on the
    /// connection was read behind it: its status line was `0`.
    @Test("HEAD of the stream answers headers only: nothing follows them but the next answer, or the close")
    func headOfStream() throws {
        try withServer { server in
            let session = try server.connect().createSession()
            let client = try server.connect()
            try client.write(
                "HEAD", session.route("events"),
                headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(session.token)")])
            try client.write("GET", "/healthz")
            let head = try client.readResponse(to: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.header("Content-Length") == nil, "a stream has no length to announce")
            if client.isClosed {
                #expect(try client.readAvailable(until: .now + .seconds(1)) == nil, "bytes after a HEAD answer")
            } else {
                let next = try client.readResponse()
                #expect(next.status == 200 && next.text == #"{"status":"ok"}"#)
            }
        }
    }
}
