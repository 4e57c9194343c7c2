import Foundation
import MicroHTTP
import Presentation
import Testing

/// A result's `value` is what was handed back, never `null` (a `null` result is no result:
/// docs/api.md), and the document is read strictly: a result without one is refused, not
/// imported as a `null` no operation could have handed back.
@Suite("Importing results")
struct ImportResultValueTests {
    let harness = APIHarness()

    /// An export whose root screen holds a result from a popped screen, with its `result` event.
    func export() throws -> [String: Any] {
        let (id, token) = try harness.createSession()
        #expect(harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "picker"}"#, token: token).status == .ok)
        #expect(harness.send(.post, "/v1/sessions/\(id)/pop", json: #"{"result": {"picked": 1}}"#, token: token).status == .ok)
        return try harness.send(.get, "/v1/sessions/\(id)/export", token: token).jsonObject()
    }

    func importing(_ document: [String: Any]) throws -> HTTPResponse {
        let body = try JSONSerialization.data(withJSONObject: document)
        return harness.send(.post, "/v1/sessions/import", json: String(decoding: body, as: UTF8.self))
    }

    @Test("A screen's result without a value, or with a null one, is refused", arguments: [false, true])
    func screenResult(null: Bool) throws {
        var document = try export()
        var root = try #require(document["root"] as? [String: Any])
        var path = try #require(root["path"] as? [[String: Any]])
        var result = try #require(path[0]["result"] as? [String: Any])
        result["value"] = null ? NSNull() : nil
        path[0]["result"] = result
        root["path"] = path
        document["root"] = root
        let response = try importing(document)
        #expect(response.status == .unprocessableContent)
        #expect(try response.problemCode() == "missing_field")
        #expect(try response.jsonObject()["pointer"] as? String == "/root/path/0/result/value")
    }

    @Test("A result event without a value, or with a null one, is refused", arguments: [false, true])
    func resultEvent(null: Bool) throws {
        var document = try export()
        var events = try #require(document["events"] as? [[String: Any]])
        let index = try #require(events.firstIndex { $0["type"] as? String == "result" })
        events[index]["value"] = null ? NSNull() : nil
        document["events"] = events
        let response = try importing(document)
        #expect(response.status == .unprocessableContent)
        #expect(try response.problemCode() == "missing_field")
        #expect(try response.jsonObject()["pointer"] as? String == "/events/\(index)/value")
    }

    @Test("The export itself imports")
    func roundTrip() throws {
        #expect(try importing(try export()).status == .created)
    }
}
