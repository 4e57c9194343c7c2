import Foundation
import MicroHTTP
import Presentation
import Testing

/// An export nests what the session's bodies sent deeper than they sent it: it must import all the same.
@Suite("Importing deeply nested sessions")
struct ImportDepthTests {
    let harness = APIHarness()

    /// An object nested `levels` deep: `{"a": {"a": ... {}}}`.
    static func nested(_ levels: Int) -> String {
        var value = "{}"
        for _ in 1..<levels { value = #"{"a": \#(value)}"# }
        return value
    }

    func roundTrip(_ id: String, _ token: String) throws {
        let export = harness.send(.get, "/v1/sessions/\(id)/export", token: token)
        #expect(export.status == .ok)
        let imported = harness.send(.post, "/v1/sessions/import", json: String(decoding: export.bodyBytes, as: UTF8.self))
        #expect(imported.status == .created, "import: \(String(decoding: imported.bodyBytes, as: UTF8.self))")
    }

    @Test("Params, a result and a state as deep as their bodies allow, on the root stack, export and import again")
    func deepValuesOnTheRoot() throws {
        let (id, token) = try harness.createSession()
        // Bodies of 32 levels, the most --max-params-depth allows: the body and 31 below it.
        let deepest = Self.nested(31)
        #expect(harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "deep", "params": \#(deepest)}"#, token: token).status == .ok)
        #expect(harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "top"}"#, token: token).status == .ok)
        #expect(harness.send(.post, "/v1/sessions/\(id)/pop", json: #"{"result": \#(deepest)}"#, token: token).status == .ok)
        #expect(harness.send(.post, "/v1/sessions/\(id)/set-state", json: #"{"state": "s", "params": \#(deepest)}"#, token: token).status == .ok)
        try roundTrip(id, token)
    }

    @Test("Params as deep as a push allows, under the most presentations allowed, export and import again")
    func deepValuesUnderPresentations() throws {
        let (id, token) = try harness.createSession()
        for _ in 0..<Limits.default.maxPresentationDepth {
            #expect(harness.send(.post, "/v1/sessions/\(id)/present", json: #"{"style": "sheet", "screen": "s"}"#, token: token).status == .ok)
        }
        let push = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "deep", "params": \#(Self.nested(31))}"#, token: token)
        #expect(push.status == .ok)
        try roundTrip(id, token)
    }
}
