import Foundation
import Presentation
import Testing

/// Copying a session as a JSON document: export with its token, import as a new session.
@Suite("Export and import")
struct ExportImportTests {
    /// A session with a result delivered, an outcome remembered and an alert open.
    static func busySession(_ client: HTTPConnection) throws -> CreatedSession {
        let session = try client.createSession(root: ["screen": "inbox", "title": "Inbox", "params": ["folder": "all"]])
        _ = try client.post("push", to: session, json: ["screen": "message", "params": ["id": 42, "ratio": 1.50]])
        _ = try client.post("present", to: session, json: ["style": "sheet", "screen": "compose", "navigation": false])
        _ = try client.post("dismiss", to: session, json: ["result": ["sent": true]])
        _ = try client.post(
            "present", to: session,
            json: [
                "style": "alert",
                "alert": [
                    "title": "Delete?", "actions": [["id": "ok", "title": "OK", "role": "destructive"]],
                    "fields": [["id": "why", "placeholder": "Reason", "secure": true]],
                ],
            ])
        return session
    }

    @Test("An imported copy has a new id and token and the same tree, revision, events and outcomes")
    func roundTrip() throws {
        try withServer { server in
            let client = try server.connect()
            let original = try Self.busySession(client)
            let export = try client.get(original.route("export"), token: original.token)
            #expect(export.status == 200)
            #expect(!export.text.contains(original.token), "an export never holds the token")
            let imported = try client.post("/v1/sessions/import", bytes: export.body)
            #expect(imported.status == 201)
            let copy = try #require(CreatedSession(answer: imported))
            #expect(copy.id != original.id)
            #expect(copy.token != original.token)
            #expect(imported.header("Location") == "/v1/sessions/\(copy.id)")
            let originalBody = try client.fetch(original)
            let copyBody = try client.fetch(copy)
            for key in ["revision", "createdAt", "updatedAt"] {
                #expect("\(originalBody[key] ?? "")" == "\(copyBody[key] ?? "")", "\(key)")
            }
            #expect(JSONText.canonical(originalBody["root"]) == JSONText.canonical(copyBody["root"]))
            #expect(JSONText.canonical(originalBody["top"]) == JSONText.canonical(copyBody["top"]))
            #expect(try JSONText.canonical(client.events(of: original)) == JSONText.canonical(client.events(of: copy)))
            let outcome = try client.get(copy.route("presentations/p4"), token: copy.token)
            #expect(try outcome.json()["status"] as? String == "dismissed")
            // The copy lives on its own: ids continue from the original's counter.
            let pushed = try client.post("dismiss", to: copy, json: ["result": ["action": "ok", "fields": ["why": "old"]]])
            #expect(pushed.status == 200)
            #expect(try client.fetch(original)["revision"] as? Int == originalBody["revision"] as? Int)
            try client.get(copy.route(), token: original.token).expectProblem(401, "unauthorized")
        }
    }

    @Test("Export needs the session's token")
    func exportNeedsToken() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let other = try client.createSession()
            try client.get(session.route("export")).expectProblem(401, "unauthorized")
            try client.get(session.route("export"), token: other.token).expectProblem(401, "unauthorized")
        }
    }

    /// Documents that must be refused, each a change to a valid export.
    static let malformed: [(name: String, code: String, change: @Sendable (inout [String: Any]) -> Void)] = [
        ("wrong format", "invalid_field", { $0["format"] = "something-else" }),
        ("unknown member", "unknown_field", { $0["extra"] = true }),
        ("no root", "missing_field", { $0.removeValue(forKey: "root") }),
        ("revision behind the events", "invalid_document", { $0["revision"] = 2 }),
        ("an id counter behind the tree", "invalid_document", { $0["lastIssuedID"] = 2 }),
        ("a bad time", "invalid_field", { $0["createdAt"] = "yesterday" }),
        ("an unknown event type", "invalid_field", { document in
            var events = document["events"] as? [[String: Any]] ?? []
            events[0]["type"] = "teleported"
            document["events"] = events
        }),
        ("an empty stack", "invalid_document", { document in
            var root = document["root"] as? [String: Any] ?? [:]
            root["path"] = []
            document["root"] = root
        }),
    ]

    @Test("A malformed document is refused with 422 and creates nothing", arguments: 0..<malformed.count)
    func malformedDocument(index: Int) throws {
        try withServer(limits: Limits(maxSessions: 2)) { server in
            let client = try server.connect()
            let original = try Self.busySession(client)
            var document = try client.get(original.route("export"), token: original.token).json()
            Self.malformed[index].change(&document)
            let response = try client.post("/v1/sessions/import", json: document)
            response.expectProblem(422, Self.malformed[index].code)
            // The one slot left is still free.
            _ = try client.createSession()
        }
    }
}
