import Foundation
import Testing

@Suite("An imported session at the counters' limit")
struct CounterLimitTests {
    /// Import takes `revision` and `lastIssuedID` up to 2^53 - 1 (docs/api.md); one change more
    /// takes the session past that, and the server writes and answers it. The restarted server
    /// must read back what it wrote.
    @Test("A session imported at the largest revision and id counter, then changed, survives a restart", arguments: [false, true])
    func importAtLimitThenChange(counter: Bool) throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        let top = (1 << 53) - 1
        let revision = counter ? 1 : top
        let document: [String: Any] = [
            "format": "presentation-server/session@1",
            "exportedFrom": "Ty4HsOftV1sFZ0Pn8iqBFQ",
            "revision": revision,
            "createdAt": "2026-01-01T00:00:00.000Z",
            "updatedAt": "2026-01-01T00:00:00.000Z",
            "lastIssuedID": counter ? top : 2,
            "root": [
                "id": "k1",
                "path": [["id": "s2", "screen": "inbox", "title": NSNull(), "params": [:], "result": NSNull(), "state": NSNull()]],
                "presentation": NSNull(),
            ],
            "eventsDroppedThrough": revision - 1,
            "events": [["revision": revision, "type": "root-set", "time": "2026-01-01T00:00:00.000Z", "stack": "k1", "screen": "s2"]],
            "outcomes": [],
        ]
        let imported = try client.post("/v1/sessions/import", json: document)
        #expect(imported.status == 201, "\(imported.text)")
        let copy = try #require(CreatedSession(answer: imported))
        let pushed = try client.post("push", to: copy, json: ["screen": "next"])
        #expect(try server.terminate() == 0)
        // Refusing the change is fine; answering it and then not starting is not.
        guard let (restarted, again) = data.restartServer(after: "the push was answered \(pushed.status)") else { return }
        let body = try HTTPConnection(port: again).fetch(copy)
        #expect(body["revision"] as? Int == (pushed.status == 200 ? revision + 1 : revision))
        #expect(try restarted.terminate() == 0)
    }
}
