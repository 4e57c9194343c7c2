import Foundation
import Presentation
import Synchronization
import Testing

/// docs/api.md: "every change made starts the count again". A durable change or creation is
/// made, and answered, once its write lands; its lease ran from when it started, so a write
/// slower than the session's time-to-live (a disk stalled a few seconds, a `ttl` of a few)
/// answered 2xx for a session already gone: the client's next request was 404.
@Suite("Leases of writes slower than the ttl")
struct SlowWriteLeaseTests {
    @Test("A change answered after a write longer than the ttl leaves the session alive")
    func slowChange() throws {
        let (clock, journal, store, id) = try InFlightChangeExpiryTests.durableSession()
        clock.advance(5)
        let made = Mutex<Bool?>(nil)
        store.change(id, { session in try session.run(.push(Fixture.spec("next"))) }) { error in
            made.withLock { $0 = error == nil }
        }
        // The disk stalls 11 s: longer than the 10 s the session lives idle.
        clock.advance(11)
        journal.land()
        #expect(made.withLock { $0 } == true)
        #expect(store.session(id)?.revision == 2, "the change was answered as made; the session it made is gone")
    }

    @Test("A creation answered after a write longer than its ttl leaves the session alive")
    func slowCreation() throws {
        let clock = ManualClock()
        let journal = RecordingJournal()
        let store = InMemorySessionStore(journal: journal, clock: { clock.now })
        let created = Mutex<SessionID?>(nil)
        store.create(root: Fixture.spec("home"), timeToLive: 2, now: clock.now) { result in
            created.withLock { $0 = try? result.get().session.id }
        }
        clock.advance(3)
        journal.land()
        let id = try #require(created.withLock { $0 }, "the creation is answered")
        #expect(store.session(id) != nil, "the session was answered as created, and is gone")
    }
}
