import Foundation
import Presentation
import Synchronization
import Testing

/// The sweep's ticks write only the renewals of short-lived sessions that reads noted, when the
/// deadline on disk comes before the next sweep's end (`NearDeadlineRenewals`): a kill loses at
/// most a tick of them, and a server whose sessions live long scans nothing between sweeps.
@Suite("Renewals near their deadline on disk, written between sweeps")
struct NearDeadlineRenewalsTests {
    private static func store(_ clock: ManualClock) -> InMemorySessionStore {
        InMemorySessionStore(
            limits: Limits(sessionTTL: 3600), journal: RecordingJournal(),
            nearDeadlines: NearDeadlineRenewals(under: 62), clock: { clock.now })
    }

    @Test("A short-lived session read is written once its deadline on disk comes before the bound; a long-lived one is not noted")
    func writtenWhenNear() throws {
        let clock = ManualClock()
        let store = Self.store(clock)
        let short = try store.create(root: Fixture.spec("home"), timeToLive: 20, now: clock.now).session.id
        let long = try store.create(root: Fixture.spec("home"), timeToLive: 3600, now: clock.now).session.id
        clock.advance(6)
        #expect(store.session(short) != nil && store.session(long) != nil)
        #expect(store.nearDeadlines?.count == 1, "only the session living under the bound is noted")
        // The deadline on disk is 20 s after creation, 14 s from now: not before a bound 10 s
        // away, so it waits, noted still.
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(10)) == 0)
        #expect(store.nearDeadlines?.count == 1)
        clock.advance(1)
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(31)) == 1)
        #expect(store.nearDeadlines?.count == 0, "written, it is no longer noted")
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(31)) == 0)
        #expect(try store.writeLeases() == 1, "the sweep writes the long-lived session's renewal")
    }

    /// What a kill loses is a renewal whose deadline on disk is near, whatever the `ttl`: a
    /// session living 100 s, idle 95 of them, then read, has on disk the deadline 5 s away.
    /// Noted by its `ttl` alone, it waited for the sweep (30 s at the default), and a server
    /// killed and restarted before that found it expired while its client still used it.
    @Test("A long-lived session read near its deadline on disk is noted and written at the next tick")
    func longLivedNearItsDeadline() throws {
        let clock = ManualClock()
        let store = Self.store(clock)
        let id = try store.create(root: Fixture.spec("home"), timeToLive: 100, now: clock.now).session.id
        clock.advance(95)
        #expect(store.session(id) != nil)
        #expect(store.nearDeadlines?.count == 1, "its deadline on disk is 5 s away")
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(31)) == 1)
        clock.advance(1)
        #expect(store.session(id) != nil)
        #expect(store.nearDeadlines?.count == 0, "written, its deadline on disk is 100 s away")
    }

    /// With a default ttl of 4 s or less the sweep's interval is 1 s and every tick is a
    /// whole sweep (`SweepTicks(every: 1)`): no tick between two sweeps ever took what reads
    /// noted, and each session read, deleted or expired since, stayed in the table, its whole
    /// tree with it, for as long as the server ran.
    @Test("A sweep's write of every moved deadline leaves nothing noted, deleted and expired sessions included")
    func sweepEmptiesTheTable() throws {
        let clock = ManualClock()
        let store = Self.store(clock)
        let deleted = try store.create(root: Fixture.spec("home"), timeToLive: 2, now: clock.now).session.id
        let expiring = try store.create(root: Fixture.spec("home"), timeToLive: 2, now: clock.now).session.id
        clock.advance(1)
        #expect(store.session(deleted) != nil && store.session(expiring) != nil)
        #expect(store.nearDeadlines?.count == 2)
        #expect(try store.delete(deleted, ifAt: nil))
        clock.advance(3)
        #expect(try store.removeExpired(now: clock.now) == 1)
        try store.writeLeases()
        #expect(store.nearDeadlines?.count == 0, "the sweep wrote or freed every one of them")
    }

    /// A slow write's change or creation runs its lease from when the write lands (a58a3f2),
    /// but the journal has the start: for a write slower than the `ttl`, a deadline already
    /// past. Not noted, it waited for the sweep, and a kill and restart meanwhile lost a
    /// session answered a moment before.
    @Test("A change or creation whose slow write lands past its deadline on disk is noted, and written at the next tick")
    func slowWritesNoted() throws {
        let clock = ManualClock()
        let journal = RecordingJournal()
        let store = InMemorySessionStore(
            limits: Limits(sessionTTL: 3600), journal: journal, nearDeadlines: NearDeadlineRenewals(under: 62),
            clock: { clock.now })
        let created = Mutex<SessionID?>(nil)
        store.create(root: Fixture.spec("home"), timeToLive: 2, now: clock.now) { result in
            created.withLock { $0 = try? result.get().session.id }
        }
        clock.advance(3)
        journal.land()
        let id = try #require(created.withLock { $0 })
        #expect(store.nearDeadlines?.count == 1, "the creation's lease runs from its landing, the journal's from its start")
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(31)) == 1)

        let made = Mutex(false)
        store.change(id, { session in try session.run(.push(Fixture.spec("next"))) }) { error in
            made.withLock { $0 = error == nil }
        }
        clock.advance(3)
        journal.land()
        #expect(made.withLock { $0 })
        #expect(store.nearDeadlines?.count == 1, "the change's lease runs from its landing, the journal's from its start")
        #expect(try store.writeNearDeadlines(writtenExpiringBefore: clock.now.addingTimeInterval(31)) == 1)
    }

    @Test("In memory, nothing is noted")
    func memoryNotesNothing() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(nearDeadlines: NearDeadlineRenewals(under: 62), clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), timeToLive: 20, now: clock.now).session.id
        clock.advance(1)
        #expect(store.session(id) != nil)
        #expect(store.nearDeadlines == nil)
    }
}
