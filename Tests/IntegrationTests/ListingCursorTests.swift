import Foundation
import Presentation
import PresentationAPI
import Testing

/// The listing's `after` is the place a walk through the sessions continues from: one that
/// names no place must be refused, never read as "from the start", or a client whose cursor
/// was lost on the way starts the walk again and again without being told.
@Suite("Listing cursor")
struct ListingCursorTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
    static let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: secret))

    @Test("A bare or empty after is 400 invalid_query, as a bare limit is, not the first page")
    func bareAfter() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            for _ in 0..<3 { _ = try client.createSession() }
            for query in ["after", "after=", "after&after=AAAAAAAAAAAAAAAAAAAAAA", "limit=1&after"] {
                let problem = try client.get("/v1/sessions?\(query)", token: Self.secret).expectProblem(400, "invalid_query")
                #expect((problem["detail"] as? String)?.contains("after") == true, "?\(query)")
            }
            #expect(try client.get("/v1/sessions?after=AAAAAAAAAAAAAAAAAAAAAA", token: Self.secret).status == 200)
        }
    }
}
