import Foundation
import Presentation
import Testing

/// A document past this server's stack or presentation limits is refused as the operation
/// that made it would be: with the limit's own code and the `limit` it broke.
@Suite("Import past a limit")
struct ImportLimitTests {
    /// An export from a server without tight limits: four screens in the root stack and three
    /// presentations stacked above it.
    static func tallDocument() throws -> [String: Any] {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for name in ["b", "c", "d"] {
                try client.post("push", to: session, json: ["screen": name]).expectSession()
            }
            for style in ["sheet", "modal", "popover"] {
                try client.post("present", to: session, json: ["screen": style, "style": style]).expectSession()
            }
            return try client.get(session.route("export"), token: session.token).json()
        }
    }

    @Test("An import with a stack past --max-stack-length is 422 stack_too_long with the limit")
    func stackTooLong() throws {
        let document = try Self.tallDocument()
        try withServer(limits: Limits(maxStackLength: 3, maxSessions: 1)) { server in
            let client = try server.connect()
            let refused = try client.post("/v1/sessions/import", json: document)
            #expect(refused.expectProblem(422, "stack_too_long").int("limit") == 3)
            // Nothing was made: the one place is free.
            _ = try client.createSession()
        }
    }

    @Test("An import with presentations past --max-presentation-depth is 422 presentations_too_deep with the limit")
    func presentationsTooDeep() throws {
        let document = try Self.tallDocument()
        try withServer(limits: Limits(maxPresentationDepth: 2, maxSessions: 1)) { server in
            let client = try server.connect()
            let refused = try client.post("/v1/sessions/import", json: document)
            #expect(refused.expectProblem(422, "presentations_too_deep").int("limit") == 2)
            _ = try client.createSession()
        }
    }

    /// `--max-presentation-depth` goes up to 1,000: a session holding that many is one the
    /// server made, so its export imports again (it was refused as nesting "too deeply").
    @Test("A session with as many presentations as the highest depth limit allows imports again")
    func deepestAllowedImports() throws {
        try withServer(limits: Limits(maxPresentationDepth: 1000)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.presentSheets(1000, on: session)
            try client.post("present", to: session, json: ["screen": "y", "style": "sheet"])
                .expectProblem(422, "presentations_too_deep")
            let export = try client.get(session.route("export"), token: session.token)
            #expect(export.status == 200)
            let imported = try client.post("/v1/sessions/import", bytes: export.body)
            #expect(imported.status == 201, "body: \(imported.text)")
        }
    }
}
