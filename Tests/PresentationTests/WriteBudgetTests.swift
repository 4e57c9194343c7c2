import Foundation
@testable import Presentation
import Synchronization
import Testing

/// `WriteBudget` in a store with a journal: large sessions' changes are slowed to the rate,
/// refused ones change nothing, and what writes nothing is never refused.
///
/// `RecordingJournal` answers 1,000 bytes and the revision for each write, so with a rate of
/// 1,000 bytes a second each write costs a little over a second, and a burst of 4 seconds lets
/// four changes through at one instant.
@Suite("Write budget")
struct WriteBudgetTests {
    /// A store over a `RecordingJournal` whose budget is 1,000 bytes a second, holding one
    /// session of one screen.
    static func store() throws -> (RecordingJournal, InMemorySessionStore, SessionID, ManualClock) {
        let journal = RecordingJournal()
        let clock = ManualClock()
        let store = InMemorySessionStore(
            journal: journal, writeBudget: WriteBudget(bytesPerSecond: 1_000),
            clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), timeToLive: nil, now: clock.now).session.id
        return (journal, store, id, clock)
    }

    static func push(_ store: InMemorySessionStore, _ id: SessionID, _ name: String) throws {
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec(name))) }
    }

    @Test("Past its burst a large session's change is refused, with the wait, and changes nothing; the wait over, it is made")
    func refusedUntilCaughtUp() throws {
        let (journal, store, id, clock) = try Self.store()
        // The creation's write is not counted (it is the creation rate's), so four changes
        // of about a second each fill the four seconds' burst.
        for name in ["a", "b", "c", "d"] { try Self.push(store, id, name) }
        let before = try #require(store.session(id))
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        #expect(throws: PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 1)) {
            try Self.push(store, id, "e")
        }
        #expect(store.session(id) == before)
        #expect(journal.saved.count == 5, "the refused change was not written")
        #expect(log.all.isEmpty, "nor told")
        // The four writes cost 4.014 s (1,002 to 1,005 bytes): 0.014 s past the burst, said as
        // a whole second.
        clock.advance(0.01)
        #expect(throws: PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 1)) {
            try Self.push(store, id, "e")
        }
        clock.advance(0.01)
        try Self.push(store, id, "e")
        #expect(store.session(id)?.revision == before.revision + 1)
    }

    @Test("Queued changes are refused the same way, answered on the spot, and made once the wait is over")
    func queuedChanges() throws {
        let (journal, store, id, clock) = try Self.store()
        let answers = Mutex<[String]>([])
        let change: @Sendable (String) -> Void = { name in
            store.change(id, { session in try session.run(.push(Fixture.spec(name))) }) { error in
                answers.withLock { $0.append(error.map { "\($0)" } ?? name) }
            }
        }
        for name in ["a", "b", "c", "d", "e"] {
            change(name)
            journal.land()
        }
        #expect(answers.withLock { $0 }.prefix(4) == ["a", "b", "c", "d"])
        #expect(answers.withLock { $0 }.last == "\(PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 1))")
        #expect(store.session(id)?.revision == 5)
        clock.advance(1.1)
        change("e")
        journal.land()
        #expect(answers.withLock { $0 }.last == "e")
        #expect(store.session(id)?.revision == 6)
    }

    @Test("A change that writes nothing, or is refused for its own reason, is answered as without the budget")
    func nothingWrittenIsNeverRefused() throws {
        let (_, store, id, _) = try Self.store()
        for name in ["a", "b", "c", "d"] { try Self.push(store, id, name) }
        let missing = try #require(ScreenID(rawValue: "s99"))
        // A read-like update: nothing to write.
        _ = try store.update(id) { _ in }
        #expect(throws: PresentationError.screenNotFound(missing)) {
            _ = try store.update(id) { session in try session.run(.popTo(missing)) }
        }
        #expect(throws: PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 1)) {
            try Self.push(store, id, "e")
        }
    }

    @Test("A session that writes under the rate is never refused, however many changes it makes")
    func underTheRate() throws {
        let (journal, store, id, clock) = try Self.store()
        for index in 0..<50 {
            clock.advance(1.1)
            try Self.push(store, id, "s\(index)")
        }
        #expect(journal.saved.count == 51)
    }

    /// Every session is counted, so the table must not keep every session ever written: an
    /// entry whose time has passed is the same as none, and those go as the table grows.
    @Test("The budget keeps only sessions still ahead of the clock, as many sessions write")
    func tableBounded() throws {
        let budget = WriteBudget(bytesPerSecond: 1_000)
        let sequence = IDSequence()
        var now = Fixture.created
        for _ in 0..<10_000 {
            budget.charge(sequence.sessionID(), bytes: 100, at: now)
            now += 0.01
        }
        // Each is 0.1 s ahead when written: about ten are still ahead at the end.
        #expect(budget.trackedSessions <= 2_048)
    }

    /// The owner's way to shut out another holder of its token is a rotation, which a holder
    /// changing the session as fast as allowed would otherwise beat to every place.
    @Test("A token rotation is taken while ordinary changes are refused; rotations in a loop are still slowed")
    func rotationAllowedMore() throws {
        let (_, store, id, _) = try Self.store()
        for name in ["a", "b", "c", "d"] { try Self.push(store, id, name) }
        #expect(throws: PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 1)) {
            try Self.push(store, id, "e")
        }
        var rotations = 0
        do {
            for _ in 0..<20 {
                _ = try store.update(id) { session in session.replaceToken(with: SessionToken.random()) }
                rotations += 1
            }
        } catch let error as PresentationError {
            guard case .writeRateLimited = error else { throw error }
        }
        // Four seconds more of about a second each, and no further.
        #expect(rotations == 4)
    }

    @Test("A clock that steps back is not waited out: the wait is at most a burst and the last write's share")
    func clockSteppingBack() throws {
        let (_, store, id, clock) = try Self.store()
        for name in ["a", "b", "c", "d"] { try Self.push(store, id, name) }
        clock.advance(-3_600)
        // Put back to twice the burst and the last write (1,005 bytes) ahead: 5.005 s past the burst.
        #expect(throws: PresentationError.writeRateLimited(bytesPerSecond: 1_000, retryAfter: 6)) {
            try Self.push(store, id, "e")
        }
        clock.advance(6)
        try Self.push(store, id, "e")
    }

    @Test("Without a journal there is nothing to budget: the in-memory store never refuses for it")
    func memoryStoreUnbounded() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(
            writeBudget: WriteBudget(bytesPerSecond: 1_000), clock: { clock.now })
        let id = try store.create(root: Fixture.spec("home"), timeToLive: nil, now: clock.now).session.id
        for index in 0..<20 { try Self.push(store, id, "s\(index)") }
        #expect(store.session(id)?.revision == 21)
    }
}
