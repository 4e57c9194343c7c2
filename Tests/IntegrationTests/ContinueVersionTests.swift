import Testing

/// libmicrohttpd reads HTTP/1.2 to HTTP/1.9 as HTTP/1.1 (RFC 9110 2.5: a higher minor version
/// is answered as the highest one the server has), and sends `100 Continue` to any of them
/// that asks for it. The server took only `HTTP/1.1` as asking: an HTTP/1.2 client that
/// announced a body past the limit and waited was told to go on, then had its whole body
/// read (up to 16 MiB: RefusedBodyDrain) before its 413, instead of the 413 at once.
@Suite("100 Continue over later HTTP/1 minor versions")
struct ContinueVersionTests {
    @Test(
        "An announced length past the limit is 413 before any 100 Continue, in any HTTP/1 minor version above 0",
        arguments: ["HTTP/1.1", "HTTP/1.2", "HTTP/1.9"])
    func refusedAtOnce(version: String) throws {
        try withServer(maxBodyBytes: 512) { server in
            let client = try server.connect(timeout: .seconds(5))
            var request = "POST /v1/sessions \(version)\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            request += "Expect: 100-continue\r\nContent-Length: 513\r\n\r\n"
            try client.writeRaw(Array(request.utf8))
            // The body is never sent: a server that sends 100 Continue waits for it here.
            let answer = try client.readResponse(to: "POST")
            #expect(answer.status == 413, "\(version): \(answer.status) before the body was sent")
            if answer.status == 413 { #expect(answer.expectProblem(413, "body_too_large").int("limit") == 512) }
        }
    }
}
