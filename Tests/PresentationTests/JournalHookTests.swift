import Foundation
import Presentation
import Synchronization
import Testing

/// A journal in memory that records what it is given and fails on demand.
final class RecordingJournal: SessionJournal {
    private let state = Mutex<(saved: [Session], removed: [SessionID], failure: PresentationError?)>(([], [], nil))

    var saved: [Session] { state.withLock { $0.saved } }
    var removed: [SessionID] { state.withLock { $0.removed } }

    func fail(with error: PresentationError?) {
        state.withLock { $0.failure = error }
    }

    func save(_ session: Session, lease: SessionLease) throws(PresentationError) {
        try state.withLock { state throws(PresentationError) in
            if let failure = state.failure { throw failure }
            state.saved.append(session)
        }
    }

    func remove(_ ids: [SessionID]) throws(PresentationError) {
        try state.withLock { state throws(PresentationError) in
            if let failure = state.failure { throw failure }
            state.removed += ids
        }
    }

    func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError) {}

    var storedBytes: Int { 0 }
}

@Suite("Store with a journal")
struct JournalHookTests {
    @Test("Every committed change is handed to the journal first, in order")
    func changesAreWritten() throws {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(journal: journal)
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        _ = try store.update(id) { _ in }
        #expect(journal.saved.map(\.revision) == [1, 2], "a read-only update writes nothing")
        #expect(journal.saved.last == store.session(id))
    }

    @Test("A change the journal refuses is not made: the session and its watchers see nothing")
    func refusedChange() throws {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(journal: journal)
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let before = try #require(store.session(id))
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        journal.fail(with: .storageFull)
        #expect(throws: PresentationError.storageFull) {
            try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        }
        #expect(store.session(id) == before)
        #expect(log.all.isEmpty)
        journal.fail(with: nil)
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        #expect(store.session(id)?.revision == 2)
    }

    @Test("A creation the journal refuses leaves no session and frees its slot")
    func refusedCreation() throws {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(limits: Limits(maxSessions: 1), journal: journal)
        journal.fail(with: .storageFailed("read-only"))
        #expect(throws: PresentationError.storageFailed("read-only")) {
            try store.create(root: Fixture.spec("home"), now: Fixture.created)
        }
        #expect(store.count == 0)
        #expect(store.sessions(after: nil, limit: 10).isEmpty)
        journal.fail(with: nil)
        _ = try store.create(root: Fixture.spec("home"), now: Fixture.created)
        #expect(store.count == 1)
    }

    @Test("A deletion the journal refuses keeps the session")
    func refusedDeletion() throws {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(journal: journal)
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        journal.fail(with: .storageFull)
        #expect(throws: PresentationError.storageFull) { try store.delete(id) }
        #expect(store.session(id) != nil)
        journal.fail(with: nil)
        #expect(try store.delete(id))
        #expect(journal.removed == [id])
        #expect(store.session(id) == nil)
    }
}
