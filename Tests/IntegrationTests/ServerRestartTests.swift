import MicroHTTP
import Testing

/// `HTTPServer` started again after `stop()`: `start()` allows it (it throws `alreadyRunning`
/// only while running), so the restarted server must serve.
@Suite("HTTP server restarted")
struct ServerRestartTests {
    struct Hello: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPReply {
            .now(HTTPResponse(status: .ok, bytes: Array("hello".utf8)))
        }

        func response(for refusal: HTTPRefusal, requestHeaders: HTTPHeaders) -> HTTPResponse {
            HTTPResponse(status: .serviceUnavailable)
        }
    }

    @Test("A server stopped and started again answers requests")
    func restarted() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1, shutdownGraceSeconds: 0.5), handler: Hello())
        defer { server.stop() }
        let first = try server.start()
        #expect(try HTTPConnection(port: first).get("/").status == 200)
        server.stop()
        let second = try server.start()
        let response = try HTTPConnection(port: second).get("/")
        #expect(response.status == 200)
        #expect(response.text == "hello")
    }
}
