import Foundation
import Testing

@Suite("An imported session dated in the future")
struct FutureImportTests {
    /// Import is open to anyone who may create a session. A document whose times lie ahead of the
    /// server's clock (exported from a server whose clock runs fast, or written so) is accepted;
    /// the session's next change stamps `updatedAt` with the server's clock, earlier than
    /// `createdAt`. The server writes and answers that change, so it must read it back.
    @Test("A session imported with future times and then changed survives a restart, and the server starts")
    func futureImportThenChange() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        let document: [String: Any] = [
            "format": "presentation-server/session@1",
            "exportedFrom": "Ty4HsOftV1sFZ0Pn8iqBFQ",
            "revision": 1,
            "createdAt": "2099-01-01T00:00:00.000Z",
            "updatedAt": "2099-01-01T00:00:00.000Z",
            "lastIssuedID": 2,
            "root": [
                "id": "k1",
                "path": [["id": "s2", "screen": "inbox", "title": NSNull(), "params": [:], "result": NSNull(), "state": NSNull()]],
                "presentation": NSNull(),
            ],
            "eventsDroppedThrough": 0,
            "events": [["revision": 1, "type": "root-set", "time": "2099-01-01T00:00:00.000Z", "stack": "k1", "screen": "s2"]],
            "outcomes": [],
        ]
        let imported = try client.post("/v1/sessions/import", json: document)
        #expect(imported.status == 201, "\(imported.text)")
        let copy = try #require(CreatedSession(answer: imported))
        let pushed = try client.post("push", to: copy, json: ["screen": "next"])
        #expect(pushed.status == 200, "the change is made and answered: \(pushed.text)")
        #expect(try server.terminate() == 0)
        guard let (restarted, again) = data.restartServer(after: "the push was answered") else { return }
        let body = try HTTPConnection(port: again).fetch(copy)
        #expect(body["revision"] as? Int == 2)
        #expect(body.rootPathNames == ["inbox", "next"])
        #expect(try restarted.terminate() == 0)
    }
}
