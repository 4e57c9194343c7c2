import Testing

/// HEAD and content negotiation on the events route, where one path answers either JSON or
/// a stream of Server-Sent Events.
@Suite("The events route's HEAD and Accept")
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

    /// RFC 9110 12.4.2: `q=0` says a type is not acceptable, so a client that names the stream
    /// only to refuse it gets the JSON listing.
    @Test("Accept: text/event-stream;q=0 is no stream: the events come as JSON")
    func streamRefused() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for accept in ["text/event-stream;q=0, application/json", "application/json, Text/Event-Stream; q=0.0"] {
                let answer = try client.get(session.route("events"), token: session.token, headers: [("Accept", accept)])
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "application/json", "\(accept)")
            }
            // A stream asked for with a weight is still a stream.
            let stream = try server.connect()
            try stream.write(
                "GET", session.route("events"),
                headers: [("Accept", "text/event-stream;q=0.5"), ("Authorization", "Bearer \(session.token)")])
            let head = try stream.readHead(until: .now + .seconds(5))
            #expect(head.header("Content-Type") == "text/event-stream")
        }
    }
}
