import Foundation
import Testing

/// A string is bounded by the body that holds it (`--max-body-bytes`) and the session that
/// keeps it (`--max-session-bytes`), the limits docs/api.md names, and by nothing else: with
/// the body limit raised past 1 MiB, a string longer than that is a body like any other.
@Suite("Long strings")
struct LongStringTests {
    /// One byte past the 1 MiB the JSON parser took by default.
    static let length = (1 << 20) + 1

    @Test("A string past 1 MiB in a body within --max-body-bytes is taken, and its session exports and imports")
    func stringPastOneMebibyte() throws {
        // Room for the export too: it holds the string three times (params, result, its event).
        try withServer(maxBodyBytes: 8 << 20) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let blob = String(repeating: "x", count: Self.length)
            let pushed = try client.post("push", to: session, json: ["screen": "a", "params": ["blob": blob]])
            pushed.expectSession(revision: 2)
            try client.post("pop", to: session, json: ["result": blob]).expectSession(revision: 3)
            let (copy, _) = try client.exportAndImport(session)
            // Compared apart from the expectation, which would print both megabytes on a failure.
            let same = try client.snapshot(of: copy) == client.snapshot(of: session)
            #expect(same, "the imported copy differs from the session")
        }
    }
}
