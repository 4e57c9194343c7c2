import Foundation
import MicroHTTP
import Presentation
import Testing

/// A creation's `root` is a screen request like a push's or a set-root's (docs/api.md): it
/// takes the params those take, however deep `--max-params-depth` lets them nest, though the
/// creation's body holds them a level further down.
@Suite("Nesting in a creation's root")
struct CreationDepthTests {
    let harness = APIHarness()

    @Test("Root params as deep as a set-root takes are taken at creation, one level more refused")
    func sameDepthAsSetRoot() throws {
        let deepest = BatchDepthTests.nested(31)
        let (id, token) = try harness.createSession()
        let setRoot = harness.send(.post, "/v1/sessions/\(id)/set-root", json: #"{"screen": "a", "params": \#(deepest)}"#, token: token)
        #expect(setRoot.status == .ok)

        for body in [#"{"root": {"screen": "a", "params": \#(deepest)}}"#, #"{"ttl": 60, "root": {"params": \#(deepest), "screen": "a"}}"#] {
            let created = harness.send(.post, "/v1/sessions", json: body)
            #expect(created.status == .created, "\(String(decoding: created.bodyBytes, as: UTF8.self))")
        }
        // A keyed retry spelled otherwise is the same creation.
        let keyed = harness.send(
            .post, "/v1/sessions", json: #"{"root": {"screen": "a", "params": \#(deepest)}}"#, headers: [("Idempotency-Key", "c")])
        let retried = harness.send(
            .post, "/v1/sessions", json: #"{ "root" : {"params": \#(deepest), "screen": "a"} }"#, headers: [("Idempotency-Key", "c")])
        #expect(keyed.status == .created && retried.status == .created)
        #expect(retried.headers["Idempotent-Replayed"] == "true")

        let deeper = BatchDepthTests.nested(32)
        let refused = harness.send(.post, "/v1/sessions", json: #"{"root": {"screen": "a", "params": \#(deeper)}}"#)
        #expect(try refused.problemCode() == "malformed_json")
    }
}
