import Foundation
import MicroHTTP
import Presentation
import Synchronization
import Testing

/// A refused request leaves the session exactly as it was, its idle deadline included.
@Suite("Refused reads and the idle deadline")
struct RefusedReadLeaseTests {

    /// Each an owner's request the server refuses.
    static let refusals: [(path: String, query: [(name: String, value: String?)], headers: [(String, String)], code: String)] = [
        ("events", [("after", "99")], [], "revision_ahead"),
        ("events", [("after", "x")], [], "invalid_query"),
        ("events", [("include", "tree")], [], "invalid_query"),
        ("presentations/p9", [], [], "presentation_not_found"),
        ("", [], [("If-None-Match", "\"x")], "invalid_header"),
        // A stale If-Match on a read is refused as on a change (412), whatever If-None-Match says.
        ("", [], [("If-Match", "\"9\""), ("If-None-Match", "\"1\"")], "revision_mismatch"),
    ]

    @Test("An owner's refused read does not keep the session alive, as a refused change does not", arguments: 0..<refusals.count)
    func refusedReadDoesNotRenew(index: Int) throws {
        let (clock, harness, id, token) = try LeaseTests.sessionOnClock()
        let sessionID = try #require(SessionID(rawValue: id))
        let before = try #require(harness.store.lease(of: sessionID))
        clock.advance(60)
        // A refused change leaves the lease alone...
        #expect(harness.send(.post, "/v1/sessions/\(id)/pop", token: token).status == .conflict)
        #expect(harness.store.lease(of: sessionID) == before)
        // ...and so must a refused read.
        let refusal = Self.refusals[index]
        let path = "/v1/sessions/\(id)" + (refusal.path.isEmpty ? "" : "/" + refusal.path)
        let refused = harness.send(.get, path, token: token, headers: refusal.headers, query: refusal.query)
        #expect(try refused.problemCode() == refusal.code)
        #expect(harness.store.lease(of: sessionID) == before, "\(refusal.code) moved the idle deadline")
    }
}
