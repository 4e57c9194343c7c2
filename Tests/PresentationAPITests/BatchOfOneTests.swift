import Foundation
import MicroHTTP
import Presentation
import Testing

@Suite("A batch of one operation")
struct BatchOfOneTests {
    let harness = APIHarness()

    @Test("A batch of one failing operation names its index in `operation`, as a batch of several does")
    func namesItsOperation() throws {
        let (id, token) = try harness.createSession()
        let refused = harness.send(.post, "/v1/sessions/\(id)/batch", json: #"{"operations": [{"op": "pop"}]}"#, token: token)
        #expect(try refused.problemCode() == "cannot_pop_root")
        let problem = try refused.jsonObject()
        #expect(problem["operation"] as? Int == 0, "problem: \(String(decoding: refused.bodyBytes, as: UTF8.self))")
        // As a body the batch cannot read names it already, and a failing step of two does.
        let unreadable = harness.send(.post, "/v1/sessions/\(id)/batch", json: #"{"operations": [{"op": "pop", "x": 1}]}"#, token: token)
        #expect(try unreadable.jsonObject()["operation"] as? Int == 0)
        let two = harness.send(.post, "/v1/sessions/\(id)/batch", json: #"{"operations": [{"op": "push", "screen": "a"}, {"op": "pop-to-root", "from": "s2"}]}"#, token: token)
        #expect(try two.problemCode() == "top_changed")
        #expect(try two.jsonObject()["operation"] as? Int == 1)
        #expect(try harness.send(.get, "/v1/sessions/\(id)", token: token).jsonObject()["revision"] as? Int == 1)
    }
}
