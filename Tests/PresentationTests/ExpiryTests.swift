import Foundation
import Presentation
import Synchronization
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current = Mutex(Fixture.created)

    var now: Date { current.withLock { $0 } }

    func advance(_ seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

@Suite("Expiry")
struct ExpiryTests {
    @Test("A session unused for its time-to-live is gone; each read or change restarts the count")
    func idleExpiry() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), now: clock.now).session.id
        clock.advance(8)
        #expect(store.session(id) != nil)
        clock.advance(8)
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("next"))) }
        clock.advance(9.5)
        #expect(store.session(id) != nil)
        clock.advance(10)
        #expect(store.session(id) == nil)
        #expect(throws: PresentationError.sessionNotFound) { try store.update(id) { _ in } }
    }

    @Test("A change refused, or not written, leaves the lease as it was; one made moves it")
    func onlyChangesMadeRenew() throws {
        let clock = ManualClock()
        let journal = RecordingJournal()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), journal: journal, clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), now: clock.now).session.id
        let created = try #require(store.lease(of: id)?.lastAccess)
        clock.advance(4)
        #expect(throws: PresentationError.self, "refused: no screen to pop") {
            try store.update(id) { session in try session.run(.pop(result: nil)) }
        }
        journal.fail(with: .storageFull)
        #expect(throws: PresentationError.storageFull) {
            try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        }
        let answered = Mutex<(any Error)?>(nil)
        store.change(id, { session in try session.run(.push(Fixture.spec("b"))) }) { error in
            answered.withLock { $0 = error }
        }
        journal.land()
        #expect(answered.withLock { $0 as? PresentationError } == .storageFull)
        #expect(store.lease(of: id)?.lastAccess == created, "neither refusal nor failed write is a use")

        journal.fail(with: nil)
        store.change(id, { session in try session.run(.push(Fixture.spec("c"))) }) { _ in }
        journal.land()
        #expect(store.lease(of: id)?.lastAccess == clock.now, "a change made is")
        clock.advance(8)
        #expect(store.session(id) != nil, "12 s after creation, 8 after the change")
    }

    @Test("A listing does not keep a session alive")
    func listingIsNoUse() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), now: clock.now).session.id
        for _ in 0..<3 {
            clock.advance(4)
            _ = store.sessions(after: nil, limit: 10)
        }
        #expect(store.sessions(after: nil, limit: 10).isEmpty)
        #expect(store.session(id) == nil)
    }

    @Test("A creator's ttl is used, capped at the maximum")
    func requestedTTL() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 100, maxSessionTTL: 30), clock: { clock.now })
        let short = try store.create(root: Fixture.spec("a"), timeToLive: 5, now: clock.now).session.id
        let long = try store.create(root: Fixture.spec("b"), timeToLive: 1_000, now: clock.now).session.id
        #expect(store.lease(of: short)?.timeToLive == 5)
        #expect(store.lease(of: long)?.timeToLive == 30)
        clock.advance(6)
        #expect(store.session(short) == nil)
        #expect(store.session(long) != nil)
    }

    /// An expired session answers 404 at once, but the sweep that frees it runs up to 30 s
    /// later: until then it held one of `maxSessions`, and creations were refused for a
    /// session nobody could use any more.
    @Test("A full store makes room from sessions that expired before the sweep came, rather than refuse")
    func fullStoreTakesExpiredSlots() throws {
        let clock = ManualClock()
        let journal = RecordingJournal()
        let store = InMemorySessionStore(
            limits: Limits(maxSessions: 2, sessionTTL: 10), journal: journal, clock: { clock.now })
        let old = try store.create(root: Fixture.spec("a"), now: clock.now).session.id
        let log = ChangeLog()
        _ = store.watch(old, log.append)
        clock.advance(6)
        let fresh = try store.create(root: Fixture.spec("b"), now: clock.now).session.id
        #expect(throws: PresentationError.tooManySessions(limit: 2), "both are live") {
            try store.create(root: Fixture.spec("c"), now: clock.now)
        }
        clock.advance(6)
        #expect(store.session(old) == nil, "expired, not yet swept")
        let made = try store.create(root: Fixture.spec("c"), now: clock.now).session.id
        #expect(store.count == 2)
        #expect(log.all == [.deleted], "its watchers are told, as by the sweep")
        #expect(journal.removed == [old], "and it leaves the journal")
        #expect(store.session(fresh) != nil)
        #expect(store.session(made) != nil)
        #expect(throws: PresentationError.tooManySessions(limit: 2), "the two left are live") {
            try store.create(root: Fixture.spec("d"), now: clock.now)
        }
    }

    /// Creations that meet a full store at once all look for expired sessions, and one of
    /// them does (a look walks every session, at most once a second). The others must wait
    /// for that look, not be refused while it frees the room they came for.
    @Test("Concurrent creations at a full store all take the places of expired sessions")
    func concurrentCreationsTakeExpiredSlots() throws {
        let clock = ManualClock()
        let limit = 2_000
        let store = InMemorySessionStore(limits: Limits(maxSessions: limit, sessionTTL: 10), clock: { clock.now })
        for _ in 0..<limit { _ = try store.create(root: Fixture.spec("a"), now: clock.now) }
        clock.advance(11)
        let refused = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                _ = try store.create(root: Fixture.spec("b"), now: clock.now)
            } catch {
                #expect(error as? PresentationError == .tooManySessions(limit: limit))
                refused.add(1, ordering: .relaxed)
            }
        }
        #expect(refused.load(ordering: .relaxed) == 0, "refused while another creation freed the room")
        #expect(store.count == 16)
    }

    /// A creation at a full store looks for expired sessions at most once a second; later in
    /// that second it takes only the places that were freed. The sweep frees them as it walks
    /// the store, and each place must count as free once its session is gone, not when the
    /// whole walk is done: creations meanwhile were refused for sessions already dropped.
    @Test("A place the sweep has freed is taken by a creation while the sweep still walks the store")
    func creationTakesPlaceFreedMidSweep() throws {
        let clock = ManualClock()
        let limit = 201
        let store = InMemorySessionStore(limits: Limits(maxSessions: limit, sessionTTL: 10), clock: { clock.now })
        // Half past a whole second, so that the moments below share theirs.
        let past = clock.now.timeIntervalSinceReferenceDate
        clock.advance(1.5 - (past - past.rounded(.down)))
        var ids: [SessionID] = []
        for _ in 0..<limit { ids.append(try store.create(root: Fixture.spec("a"), now: clock.now).session.id) }
        // The session of the last shard the sweep walks stays alive, read; the others expire.
        ids.sort { $0.shardKey < $1.shardKey }
        let alive = ids.removeLast(), firstExpired = ids[0]
        #expect(firstExpired.shardKey < alive.shardKey)
        clock.advance(5)
        #expect(store.read(alive) { _ in true })
        // Nothing has expired yet: refused, and this second's look is spent.
        clock.advance(4.7)
        #expect(throws: PresentationError.tooManySessions(limit: limit)) { try store.create(root: Fixture.spec("b"), now: clock.now) }
        clock.advance(0.5)
        // A read of the live session holds its lock, which stops the sweep there, past every
        // shard but its own.
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            _ = store.read(alive) { _ in
                holding.signal()
                _ = letGo.wait(timeout: .now() + 5)
                return false
            }
            done.signal()
        }.start()
        #expect(holding.wait(timeout: .now() + 5) == .success)
        let swept = Atomic<Int>(-1)
        Thread {
            swept.store((try? store.removeExpired(now: clock.now)) ?? -2, ordering: .relaxed)
            done.signal()
        }.start()
        let deadline = Date().addingTimeInterval(5)
        while store.lease(of: firstExpired) != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(store.lease(of: firstExpired) == nil, "the sweep has dropped the first shard's sessions")
        let created = Result { () throws(PresentationError) in try store.create(root: Fixture.spec("c"), now: clock.now) }
        letGo.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(throws: Never.self, "refused while the sweep had freed places") { try created.get() }
        #expect(swept.load(ordering: .relaxed) == limit - 1)
        #expect(store.count == 2)
    }

    @Test("The sweep frees expired sessions, tells their watchers, and leaves the others")
    func sweep() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 10), clock: { clock.now })
        let old = try store.create(root: Fixture.spec("a"), now: clock.now).session.id
        let log = ChangeLog()
        _ = store.watch(old, log.append)
        clock.advance(6)
        let fresh = try store.create(root: Fixture.spec("b"), now: clock.now).session.id
        clock.advance(6)
        #expect(try store.removeExpired(now: clock.now) == 1)
        #expect(store.count == 1)
        #expect(log.all == [.deleted])
        #expect(store.session(fresh) != nil)
        #expect(try store.removeExpired(now: clock.now) == 0)
    }
}
