import Dispatch
import Foundation
import MicroHTTP
import Presentation
import Synchronization
@testable import PresentationAPI
import Testing

/// What a long poll answers when the session's token is replaced while it waits.
@Suite("Long polls")
struct SessionWaiterTests {
    /// Not a measure: a wait that never ends fails the test instead of hanging the run.
    static var hangGuard: DispatchTime { .now() + 30 }

    /// Two changes of the wait's token (revisions 2 and 3) land before a rotation, and their
    /// notices reach the wait only after it, each on its own thread outside the lock. Told of
    /// revision 2 with the session at 3 under the new token, the wait answered 401, though 3
    /// was its token's too: nothing tells yet, and the notice of 3 that does is still to come.
    @Test("A late notice of a change the wait's token made does not refuse it while a later one may be that token's too")
    func lateNoticeOfAnEarlierChange() throws {
        let harness = APIHarness()
        let (rawID, token) = try harness.createSession()
        let id = try #require(SessionID(rawValue: rawID))
        // Watchers are told in the order they registered: one registered first holds each push's
        // thread, after its change is made and before the wait is told of it.
        let gates = [2: DispatchSemaphore(value: 0), 3: DispatchSemaphore(value: 0)]
        let held = DispatchSemaphore(value: 0)
        let hold = try #require(
            harness.store.watch(id) { change in
                guard case .revised(let revision, _) = change, let gate = gates[revision] else { return }
                held.signal()
                _ = gate.wait(timeout: Self.hangGuard)
            })
        defer { hold.cancel() }
        let session = try #require(harness.store.session(id))
        let reply = SessionWaiter.wait(
            for: session, in: harness.store, seconds: 60, renewals: harness.api.renewals, ready: { $0.revision > 1 ? HTTPResponse(status: .ok) : nil },
            timeout: { _ in HTTPResponse(status: .noContent) })
        guard case .later(let deferred) = reply else {
            Issue.record("the wait was answered at once")
            return
        }
        let told = [2: DispatchSemaphore(value: 0), 3: DispatchSemaphore(value: 0)]
        for (revision, screen) in [(2, "a"), (3, "b")] {
            DispatchQueue.global().async {
                _ = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "\#(screen)"}"#, token: token)
                told[revision]?.signal()
            }
            #expect(held.wait(timeout: Self.hangGuard) == .success, "push \(revision) told no watcher")
        }
        #expect(harness.send(.post, "/v1/sessions/\(rawID)/token", token: token).status == .ok)

        gates[2]?.signal()
        #expect(told[2]?.wait(timeout: Self.hangGuard) == .success)
        #expect(deferred.completed == nil, "answered at revision 2's notice")
        gates[3]?.signal()
        #expect(told[3]?.wait(timeout: Self.hangGuard) == .success)
        #expect(deferred.completed?.status == .ok)
    }

    /// A wait whose time runs out after its token was replaced is refused (401); its last look
    /// at the session counted as a use all the same, so the revoked token's wait kept the
    /// session alive to the moment it ran out, which only the owner's requests may do.
    @Test("A wait that runs out after its token was replaced is refused without renewing the session")
    func timeoutAfterRotationRenewsNothing() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Mutex(start)
        let harness = APIHarness(now: { clock.withLock { $0 } })
        let (rawID, token) = try harness.createSession()
        let id = try #require(SessionID(rawValue: rawID))
        let session = try #require(harness.store.session(id))
        let reply = SessionWaiter.wait(
            for: session, in: harness.store, seconds: 1, renewals: harness.api.renewals, ready: { _ in nil },
            timeout: { _ in HTTPResponse(status: .noContent) })
        guard case .later(let deferred) = reply else {
            Issue.record("the wait was answered at once")
            return
        }
        #expect(harness.send(.post, "/v1/sessions/\(rawID)/token", token: token).status == .ok)
        let rotated = try #require(harness.store.lease(of: id)).lastAccess
        // An hour passes on the server's clock before the wait runs out (a second, in real time).
        clock.withLock { $0 += 3_600 }
        let deadline = Date().addingTimeInterval(30)
        while deferred.completed == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(deferred.completed?.status == .unauthorized)
        #expect(harness.store.lease(of: id)?.lastAccess == rotated, "the revoked wait renewed the session")
    }
}
