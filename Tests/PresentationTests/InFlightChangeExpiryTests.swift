import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

/// A durable change is answered once its write lands, and readers see the session as last
/// written meanwhile: its lease too, so far. A change that came just before the session's
/// time-to-live ran out, written while it did, left readers answered 404 for a session that
/// the change, answered 2xx, then kept: gone, then back.
@Suite("Expiry while a change is written")
struct InFlightChangeExpiryTests {
    /// A store over a `RecordingJournal` (writes land when the test says), sessions living 10 s
    /// idle, holding one session created at the clock's start.
    static func durableSession() throws -> (ManualClock, RecordingJournal, InMemorySessionStore, SessionID) {
        let clock = ManualClock()
        let journal = RecordingJournal()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), journal: journal, clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), now: clock.now).session.id
        return (clock, journal, store, id)
    }

    @Test("A session is not gone to readers while a change made before its expiry is written, and the change is kept")
    func readDuringWriteSeesTheSessionAlive() throws {
        let (clock, journal, store, id) = try Self.durableSession()
        clock.advance(9.5)
        // nil until answered; then whether the change was made.
        let made = Mutex<Bool?>(nil)
        store.change(id, { session in try session.run(.push(Fixture.spec("next"))) }) { error in
            made.withLock { $0 = error == nil }
        }
        // The write takes a second (a slow disk): 10.5 s after creation, 1 after the change.
        clock.advance(1)
        let during = store.session(id)
        #expect(during != nil, "the change in flight is a use: the session is not gone under it")
        #expect(try store.removeExpired(now: clock.now) == 0, "nor does the sweep remove it")
        journal.land()
        #expect(made.withLock { $0 } == true, "the change is answered as made")
        let after = try #require(store.session(id), "and the session that has it is there")
        #expect(after.revision == 2)
    }

    @Test("A change whose write fails keeps the session alive no longer than it was")
    func failedWriteLeavesTheLease() throws {
        let (clock, journal, store, id) = try Self.durableSession()
        let created = try #require(store.lease(of: id)?.lastAccess)
        clock.advance(9.5)
        journal.fail(with: .storageFull)
        store.change(id, { session in try session.run(.push(Fixture.spec("next"))) }) { _ in }
        #expect(try store.writeLeases() == 0, "the sweep writes no lease a change not yet written moved")
        journal.land()
        #expect(store.lease(of: id)?.lastAccess == created, "a failed write is no use")
        clock.advance(1)
        #expect(store.session(id) == nil)
    }

    @Test("A read while a change is written still counts when the write fails")
    func readDuringFailedWriteCounts() throws {
        let (clock, journal, store, id) = try Self.durableSession()
        clock.advance(5)
        journal.fail(with: .storageFull)
        store.change(id, { session in try session.run(.push(Fixture.spec("next"))) }) { _ in }
        clock.advance(1)
        #expect(store.session(id) != nil)
        let read = clock.now
        journal.land()
        #expect(store.lease(of: id)?.lastAccess == read, "the read was a use, whatever became of the change")
    }

    /// Without a journal a change tells its watchers outside the lock, and a deletion waits
    /// for that to end so that `deleted` is the last word; the sweep did not, so a stream could
    /// be told `deleted` before the change that came first (a ttl shorter than the telling, or
    /// the clock jumping forward meanwhile).
    @Test("In memory, a session whose change is still telling its watchers is left to the next sweep")
    func sweepWaitsForTelling() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), now: clock.now).session.id
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let told = ChangeLog()
        let hold = try #require(
            store.watch(id) { change in
                told.append(change)
                guard case .revised = change else { return }
                held.signal()
                _ = release.wait(timeout: .now() + 30)
            })
        defer { hold.cancel() }
        let changed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.update(id) { session in try session.run(.push(Fixture.spec("next"))) }
            changed.signal()
        }
        #expect(held.wait(timeout: .now() + 30) == .success)
        clock.advance(11)
        #expect(try store.removeExpired(now: clock.now) == 0, "closed while its change was still being told")
        release.signal()
        #expect(changed.wait(timeout: .now() + 30) == .success)
        #expect(try store.removeExpired(now: clock.now) == 1)
        let kinds = told.all.map { change -> String in
            if case .revised(let revision, _) = change { return "revised \(revision)" }
            return "deleted"
        }
        #expect(kinds == ["revised 2", "deleted"])
    }
}
