import Foundation
import MicroHTTP
import Presentation
import Synchronization
import Testing

/// What keeps a session alive: its owner's reads and the changes it makes, not requests that
/// fail the token check (anyone who has seen a session's id could otherwise keep it for ever).
@Suite("Idle deadlines")
struct LeaseTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    private static let stranger = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

    /// An API on a hand-moved clock, and a session on it that lives 100 s unused.
    static func sessionOnClock() throws -> (clock: Clock, harness: APIHarness, id: String, token: String) {
        let clock = Clock()
        let harness = APIHarness(now: { clock.now })
        let created = harness.send(.post, "/v1/sessions", json: #"{"root": {"screen": "inbox"}, "ttl": 100}"#)
        #expect(created.status == .created)
        let body = try created.jsonObject()
        return (clock, harness, try #require(body["id"] as? String), try #require(body["token"] as? String))
    }

    @Test("Requests with a wrong token do not keep someone else's session alive")
    func strangersDoNotRenew() throws {
        let (clock, harness, id, token) = try Self.sessionOnClock()
        for _ in 0..<2 {
            clock.advance(40)
            #expect(harness.send(.get, "/v1/sessions/\(id)", token: Self.stranger).status == .unauthorized)
            #expect(harness.send(.get, "/v1/sessions/\(id)/events", token: Self.stranger).status == .unauthorized)
            #expect(
                harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: Self.stranger).status
                    == .unauthorized)
        }
        // 120 s after the owner last used it, with a ttl of 100 s (40 s after the last stranger).
        clock.advance(40)
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .notFound)
    }

    @Test("The owner's reads and changes keep it alive", arguments: ["read", "events", "push"])
    func ownerRenews(use: String) throws {
        let (clock, harness, id, token) = try Self.sessionOnClock()
        for _ in 0..<3 {
            clock.advance(60)
            let status =
                switch use {
                case "read": harness.send(.get, "/v1/sessions/\(id)", token: token).status
                case "events": harness.send(.get, "/v1/sessions/\(id)/events", token: token).status
                default: harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token).status
                }
            #expect(status == .ok)
        }
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .ok)
    }
}
