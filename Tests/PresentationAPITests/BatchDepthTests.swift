import Foundation
import MicroHTTP
import Presentation
import Testing

/// A batch's operations are each "with the fields of its route" (docs/api.md): what a route
/// takes, a batch takes, however deep `--max-params-depth` lets its values nest. The batch
/// holds each operation two levels down (`operations` and the operation's object).
@Suite("Nesting in a batch's operations")
struct BatchDepthTests {
    let harness = APIHarness()

    /// An object `levels` deep: `{"a":{"a":...1}}`.
    static func nested(_ levels: Int) -> String {
        String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
    }

    @Test("Params and values a route takes at the depth limit are taken in a batch, and those it refuses refused")
    func sameDepthAsRoutes() throws {
        let (id, token) = try harness.createSession()
        let base = "/v1/sessions/\(id)"
        // The deepest a push's params may nest at the default 32 levels: the body is one more.
        let deepest = Self.nested(31)
        #expect(harness.send(.post, "\(base)/push", json: #"{"screen": "a", "params": \#(deepest)}"#, token: token).status == .ok)
        #expect(harness.send(.post, "\(base)/set-state", json: #"{"state": "s", "params": \#(deepest)}"#, token: token).status == .ok)
        let batch = #"{"operations": [{"op": "push", "screen": "b", "params": \#(deepest)}, {"op": "set-state", "state": "loading", "params": \#(deepest)}, {"op": "pop", "result": \#(deepest)}]}"#
        let answered = harness.send(.post, "\(base)/batch", json: batch, token: token, headers: [("Idempotency-Key", "k")])
        #expect(answered.status == .ok, "\(String(decoding: answered.bodyBytes, as: UTF8.self))")
        // A retry that spells the same batch otherwise is the same request, as for any route.
        let respelled = #"{ "operations" : [{"screen": "b", "op": "push", "params": \#(deepest)}, {"params": \#(deepest), "op": "set-state", "state": "loading"}, {"result": \#(deepest), "op": "pop"}] }"#
        let retried = harness.send(.post, "\(base)/batch", json: respelled, token: token, headers: [("Idempotency-Key", "k")])
        #expect(retried.status == .ok && retried.headers["Idempotent-Replayed"] == "true")

        // One level more is refused alone, and in a batch too.
        let deeper = Self.nested(32)
        #expect(try harness.send(.post, "\(base)/push", json: #"{"screen": "a", "params": \#(deeper)}"#, token: token).problemCode() == "malformed_json")
        let refused = harness.send(.post, "\(base)/batch", json: #"{"operations": [{"op": "push", "screen": "b", "params": \#(deeper)}]}"#, token: token)
        #expect(try refused.problemCode() == "malformed_json")
        #expect(try harness.send(.get, base, token: token).jsonObject()["revision"] as? Int == 4)
    }
}
