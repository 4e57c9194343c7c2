import Foundation
import PresentationAPI
import Testing

/// docs/api.md documents `Prefer: return=minimal` for clients that follow the tree through
/// events; a page on an allowed origin must be let send it and read `Preference-Applied`.
@Suite("CORS and Prefer")
struct CORSPreferTests {
    static let allowed = "https://app.example.com"
    static let api = APIConfiguration(cors: CORSPolicy(allowedOrigins: [allowed]))

    @Test("A preflight allows Prefer, and Preference-Applied is exposed")
    func prefer() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let answer = try client.request(
                "OPTIONS", session.route("push"),
                headers: [
                    ("Origin", Self.allowed), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "authorization, content-type, prefer"),
                ])
            #expect(answer.status == 204)
            let allowed = (answer.header("Access-Control-Allow-Headers") ?? "").lowercased()
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(allowed.contains("prefer"), "Access-Control-Allow-Headers: \(allowed)")
            let pushed = try client.request(
                "POST", session.route("push"),
                headers: [
                    ("Origin", Self.allowed), ("Authorization", "Bearer \(session.token)"),
                    ("Content-Type", "application/json"), ("Prefer", "return=minimal"),
                ], body: Array(#"{"screen":"x"}"#.utf8))
            #expect(pushed.status == 200 && pushed.header("Preference-Applied") == "return=minimal")
            let exposed = (pushed.header("Access-Control-Expose-Headers") ?? "").lowercased()
            #expect(exposed.contains("preference-applied"), "Access-Control-Expose-Headers: \(exposed)")
        }
    }
}
