import Foundation
import Presentation
@testable import PresentationAPI
import Testing

/// Creations by `Idempotency-Key` are remembered in a bounded cache (`creationKeysKept`).
@Suite("Creation replies by idempotency key")
struct CreationKeyTests {
    private static let body = #"{"root": {"screen": "inbox"}}"#

    private static func create(_ harness: APIHarness, key: String, body: String = body) throws -> (id: String, replayed: Bool) {
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

    /// An answer carries the session made, params and all: 10,000 of a megabyte each were
    /// 10 GB that no session limit counted (the sessions could be deleted at once).
    @Test("Past the byte budget the oldest answers are forgotten, whatever their count")
    func byteBudget() throws {
        let large = #"{"root": {"screen": "inbox", "params": {"pad": "\#(String(repeating: "p", count: 2_000))"}}}"#
        let harness = APIHarness(configuration: APIConfiguration(creationKeysKept: 100, creationReplyBytesKept: 5_000))
        let made = try ["one", "two", "three"].map { try Self.create(harness, key: $0, body: large) }
        for (key, first) in zip(["two", "three"], made.dropFirst()) {
            let retried = try Self.create(harness, key: key, body: large)
            #expect(retried.id == first.id && retried.replayed, "\(key) is within the budget")
        }
        let again = try Self.create(harness, key: "one", body: large)
        #expect(!again.replayed && again.id != made[0].id, "three answers of 2 KB are past 5,000 bytes: the oldest went")
        // Answers of a few hundred bytes, as most are, are bounded by their count.
        let counted = APIHarness(configuration: APIConfiguration(creationKeysKept: 10, creationReplyBytesKept: 5_000))
        let small = try (0..<11).map { try Self.create(counted, key: "small-\($0)") }
        for (index, first) in small.enumerated().dropFirst() {
            #expect(try Self.create(counted, key: "small-\(index)").id == first.id, "small-\(index) is kept")
        }
        #expect(try Self.create(counted, key: "small-0").id != small[0].id, "the eleventh key pushed out the first")
    }
}
