import Foundation
import MicroHTTP
import Testing

/// RFC 9112 2.2: a bare CR in the request line MUST be taken as invalid, or each one read as a
/// space before the element is processed. libmicrohttpd 0.9.75 leaves one in the target as
/// data, where a proxy in front may end the line at it; the server reads it as a space. A CR
/// sent escaped (`%0D`) is data, decoded as any other byte.
@Suite("A bare CR in the request target")
struct BareCRInTargetTests {
    /// Answers with the path and each query argument as it reached the handler, one a line.
    final class Echo: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPReply {
            let lines = [request.path] + request.query.map { "\($0.name)=\($0.value ?? "")" }
            return .now(HTTPResponse(status: .ok, bytes: Array(lines.joined(separator: "\n").utf8)))
        }

        func response(for refusal: HTTPRefusal, requestHeaders: HTTPHeaders) -> HTTPResponse {
            HTTPResponse(status: .badRequest)
        }
    }

    @Test("A CR sent raw in the path or the query reaches the handler as a space; one sent as %0D as a CR")
    func bareCRReadAsSpace() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1, shutdownGraceSeconds: 0.5), handler: Echo())
        defer { server.stop() }
        let port = try server.start()
        let cases: [(target: String, seen: String)] = [
            ("/a\rb?x=1", "/a b\nx=1"),
            ("/a?x=1\rjunk&y=2", "/a\nx=1 junk\ny=2"),
            ("/a?x\r=1", "/a\nx =1"),
            ("/a%20b?x=1%0D2", "/a b\nx=1\r2"),
            ("/a?x=%41\r%42", "/a\nx=A B"),
        ]
        for (target, seen) in cases {
            let client = try HTTPConnection(port: port)
            try client.writeRaw(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let response = try client.readResponse()
            #expect(response.status == 200, "\(target.debugDescription)")
            #expect(response.text == seen, "\(target.debugDescription) reached the handler as \(response.text.debugDescription)")
        }
    }
}
