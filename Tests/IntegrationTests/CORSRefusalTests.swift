import Foundation
import PresentationAPI
import Testing

/// docs/api.md: "For an allowed origin every answer carries `Access-Control-Allow-Origin` (the
/// origin itself), `Access-Control-Expose-Headers: …` and `Vary: Origin`": refusals made before
/// the API sees the request too, or the page reads a network error instead of the problem.
@Suite("CORS on refusals")
struct CORSRefusalTests {
    static let allowed = "https://app.example.com"
    static let api = APIConfiguration(cors: CORSPolicy(allowedOrigins: [allowed]))

    @Test("A body past the limit is 413 with the CORS headers, announced or chunked")
    func bodyTooLarge() throws {
        try withServer(maxBodyBytes: 512, api: Self.api) { server in
            let session = try server.connect().createSession()
            var head = "POST \(session.route("push")) HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: \(Self.allowed)\r\n"
            head += "Authorization: Bearer \(session.token)\r\nContent-Type: application/json\r\n"

            let announced = try server.connect()
            try announced.writeRaw(Array((head + "Content-Length: 513\r\n\r\n" + String(repeating: "x", count: 513)).utf8))
            let early = try announced.readResponse(to: "POST")
            early.expectProblem(413, "body_too_large")
            #expect(early.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(early.header("Vary") == "Origin")

            let chunked = try server.connect()
            let piece = String(repeating: "x", count: 600)
            try chunked.writeRaw(
                Array((head + "Transfer-Encoding: chunked\r\n\r\n\(String(600, radix: 16))\r\n\(piece)\r\n0\r\n\r\n").utf8))
            let late = try chunked.readResponse(to: "POST")
            late.expectProblem(413, "body_too_large")
            #expect(late.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(late.header("Vary") == "Origin")
        }
    }
}
