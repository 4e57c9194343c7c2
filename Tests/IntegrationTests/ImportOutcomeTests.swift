import Foundation
import Testing

/// The outcomes of an imported document are ids of the session's one counter, like the tree's.
@Suite("Imported outcomes")
struct ImportOutcomeTests {
    @Test("An import whose outcome names an id past lastIssuedID is refused; accepted, it keeps a durable server from restarting")
    func outcomeBeyondCounter() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer()
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: port)
        let original = try client.createSession()
        var document = try client.get(original.route("export"), token: original.token).json()
        // k1 and s2 are all the counter issued; p3 is the next id it will issue.
        document["lastIssuedID"] = 2
        document["outcomes"] = [["id": "p3", "style": "sheet", "presentedBy": "s2", "status": "cancelled", "result": NSNull()]]
        let imported = try client.post("/v1/sessions/import", json: document)
        // docs/api.md: "ids unique and within lastIssuedID ... a document that fails is 422".
        #expect(imported.status == 422, "body: \(imported.text)")
        guard imported.status == 201 else { return }
        let copy = try #require(CreatedSession(answer: imported))
        let present = try client.post("present", to: copy, json: ["style": "sheet", "screen": "compose"])
        #expect(present.status == 200)
        #expect(try present.json()["presentation"] as? String != "p3", "the counter issued an id the document had used")
        // Its own export must import again...
        let again = try client.post("/v1/sessions/import", bytes: try client.get(copy.route("export"), token: copy.token).body)
        #expect(again.status == 201, "re-import of the session's own export: \(again.text)")
        // ...and a restart must load it.
        #expect(try server.terminate() == 0)
        (server, port) = try data.startServer()
        let restarted = try HTTPConnection(port: port)
        #expect(try restarted.get(copy.route(), token: copy.token).status == 200)
    }

    @Test("An import whose outcome reuses an id of the tree, or another outcome's, is refused", arguments: ["s2", "p3"])
    func outcomeReusingAnID(number: String) throws {
        try withServer { server in
            let client = try server.connect()
            let original = try client.createSession()
            _ = try client.post("present", to: original, json: ["style": "sheet", "screen": "compose"])
            _ = try client.post("dismiss", to: original)
            var document = try client.get(original.route("export"), token: original.token).json()
            // p3 is the dismissed sheet's outcome; "p2" takes the number of screen s2, a second "p3" repeats it.
            let reused = number == "s2" ? "p2" : "p3"
            var outcomes = try #require(document["outcomes"] as? [[String: Any]])
            outcomes.append(["id": reused, "style": "modal", "presentedBy": "s2", "status": "cancelled"])
            document["outcomes"] = outcomes
            let imported = try client.post("/v1/sessions/import", json: document)
            _ = imported.expectProblem(422, "invalid_document")
        }
    }
}
