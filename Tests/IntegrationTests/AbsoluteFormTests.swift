import Testing

/// RFC 9112, section 3.2.2: "a server MUST accept the absolute-form in requests" (a request
/// target such as `http://host/path`, as a proxy may send it), and take its path as the path.
@Suite("Request targets in absolute form")
struct AbsoluteFormTests {
    @Test("GET http://host/healthz is /healthz; a session is read at its absolute URL")
    func absoluteForm() throws {
        try withServer { server in
            let client = try server.connect()
            let health = try client.get("http://127.0.0.1:\(server.port)/healthz")
            #expect(health.status == 200)
            let session = try client.createSession()
            let read = try client.get("HTTP://127.0.0.1:\(server.port)" + session.route(), token: session.token)
            #expect(read.status == 200)
            #expect(try client.get("http://127.0.0.1:\(server.port)").status == 404, "the root: no route, no file")
        }
    }
}
