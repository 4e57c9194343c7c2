import Foundation
import Presentation
import Testing

@Suite("Imports and the creation rate")
struct ImportRateTests {
    @Test("An import refused as invalid_document costs nothing of the creation allowance")
    func refusedImportCostsNothing() throws {
        try withServer(api: CreationRateTests.api(perMinute: 2), clock: TestClock()) { server in
            let client = try server.connect()
            let original = try client.createSession()
            var document = try client.get(original.route("export"), token: original.token).json()
            // Events of revision 1 but a document at revision 2: an invariant broken.
            document["revision"] = 2
            try client.post("/v1/sessions/import", json: document).expectProblem(422, "invalid_document")
            // docs/api.md: "a replayed creation (same Idempotency-Key) and a refused body cost nothing".
            let second = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
            #expect(second.status == 201, "body: \(second.text)")
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(429, "rate_limited")
        }
    }
}
