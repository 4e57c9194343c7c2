import Foundation
import PresentationAPI
import Testing

/// Cross-origin browser clients: off by default, an allow-list when configured.
@Suite("CORS")
struct CORSTests {
    static let allowed = "https://app.example.com"
    static let api = APIConfiguration(cors: CORSPolicy(allowedOrigins: [allowed]))

    private func preflight(_ client: HTTPConnection, _ path: String, origin: String) throws -> ClientResponse {
        try client.request(
            "OPTIONS", path,
            headers: [
                ("Origin", origin), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "authorization, content-type"),
            ])
    }

    @Test("Off by default: no CORS headers, though OPTIONS still lists the methods")
    func off() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try preflight(client, session.route("push"), origin: Self.allowed)
            #expect(answer.status == 204)
            #expect(answer.header("Allow") == "POST, OPTIONS")
            #expect(answer.header("Access-Control-Allow-Origin") == nil)
            let read = try client.get(session.route(), token: session.token, headers: [("Origin", Self.allowed)])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test("An allowed origin's preflight and requests get the headers a browser needs")
    func allowed() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try preflight(client, session.route("push"), origin: Self.allowed)
            #expect(answer.status == 204)
            #expect(answer.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(answer.header("Access-Control-Allow-Methods") == "POST")
            let headers = answer.header("Access-Control-Allow-Headers")?.lowercased() ?? ""
            #expect(headers.contains("authorization") && headers.contains("content-type") && headers.contains("if-match"))
            #expect(answer.header("Access-Control-Allow-Credentials") == nil)
            // Once: the preflight's own headers name it, and the answer's defaults did again.
            #expect(answer.list("Vary") == ["origin"])
            let origin = [("Origin", Self.allowed)]
            let read = try client.get(session.route(), token: session.token, headers: origin)
            #expect(read.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(read.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
            // A page on another origin saving an export reads the file name it is offered.
            let exported = try client.get(session.route("export"), token: session.token, headers: origin)
            #expect(exported.header("Content-Disposition")?.contains("session-") == true)
            #expect(exported.list("Access-Control-Expose-Headers").contains("content-disposition"))
            #expect(read.header("Vary") == "Origin")
            let refused = try client.get(session.route(), headers: origin)
            #expect(refused.status == 401 && refused.header("Access-Control-Allow-Origin") == Self.allowed)
            // A long poll is answered later, from another thread: it carries them too.
            let waited = try client.get(session.route("events?after=1&wait=1"), token: session.token, headers: origin)
            #expect(waited.status == 200 && waited.header("Access-Control-Allow-Origin") == Self.allowed)
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: origin + [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.header("Access-Control-Allow-Origin") == Self.allowed)
        }
    }

    @Test("Another origin gets no CORS headers, so the browser refuses it")
    func otherOrigin() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try preflight(client, session.route("push"), origin: "https://evil.example")
            #expect(answer.status == 204)
            #expect(answer.header("Access-Control-Allow-Origin") == nil)
            #expect(answer.header("Access-Control-Allow-Methods") == nil)
            let read = try client.get(session.route(), token: session.token, headers: [("Origin", "https://evil.example")])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil)
            #expect(read.header("Vary") == "Origin")
            let wrongMethod = try client.request(
                "OPTIONS", session.route(), headers: [("Origin", Self.allowed), ("Access-Control-Request-Method", "PUT")])
            #expect(wrongMethod.header("Access-Control-Allow-Methods") == nil)
        }
    }
}
