import Foundation
import Presentation
@testable import PresentationAPI
import Testing

/// Creations by `Idempotency-Key` are remembered in a bounded cache (`creationKeysKept`).
@Suite("Creation replies by idempotency key")
struct CreationKeyTests {
    private static let body = #"{"root": {"screen": "inbox"}}"#

    private static func create(_ harness: APIHarness, key: String) throws -> (id: String, replayed: Bool) {
        let response = harness.send(.post, "/v1/sessions", json: body, headers: [("Idempotency-Key", key)])
        #expect(response.status == .created)
        return (try #require(try response.jsonObject()["id"] as? String), response.headers["Idempotent-Replayed"] == "true")
    }

    /// The bound is the number of keys kept: all of them replay, and only the one more than
    /// that pushes out the oldest. One fewer kept would make a client's retry of its oldest
    /// creation, well within the promised count, create a second session.
    @Test("Exactly creationKeysKept keys are replayed; the next pushes out the oldest")
    func keptKeys() throws {
        let harness = APIHarness(configuration: APIConfiguration(creationKeysKept: 2))
        let first = try Self.create(harness, key: "one")
        let second = try Self.create(harness, key: "two")
        for (key, made) in [("one", first), ("two", second)] {
            let retried = try Self.create(harness, key: key)
            #expect(retried.id == made.id && retried.replayed, "\(key) is still kept")
        }
        _ = try Self.create(harness, key: "three")
        let again = try Self.create(harness, key: "one")
        #expect(!again.replayed && again.id != first.id, "the oldest key was forgotten")
        #expect(harness.store.count == 4)
    }
}
