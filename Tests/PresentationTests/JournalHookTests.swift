import Foundation
import Presentation
import Synchronization
import Testing

/// A journal in memory that records what it is given and fails on demand. Queued saves
/// (`save(_:lease:then:)`) wait, as on a slow disk, until `land()` writes them.
final class RecordingJournal: SessionJournal {
    private struct State {
        var saved: [Session] = []
        /// What the store said the journal held of each saved session, in order.
        var previous: [StoredSession?] = []
        var removed: [StoredSession] = []
        var failure: PresentationError?
        /// What `storedBytes` answers.
        var storedBytes = 0
        var queued: [(session: Session, previous: StoredSession?, done: @Sendable (Result<Int, PresentationError>) -> Void)] =
            []
    }

    private let state = Mutex(State())

    var saved: [Session] { state.withLock { $0.saved } }
    var previous: [StoredSession?] { state.withLock { $0.previous } }
    var removed: [SessionID] { state.withLock { $0.removed.map(\.id) } }
    var removedSessions: [StoredSession] { state.withLock { $0.removed } }
    var queuedRevisions: [Int] { state.withLock { $0.queued.map(\.session.revision) } }

    /// The bytes this journal answers for a session: made up, and different for each revision,
    /// so that a test sees which answer the store handed back.
    static func bytes(of session: Session) -> Int { 1_000 + session.revision }

    func fail(with error: PresentationError?) {
        state.withLock { $0.failure = error }
    }

    /// Makes `storedBytes` answer `bytes`, as a file that has grown to that size.
    func report(storedBytes bytes: Int) {
        state.withLock { $0.storedBytes = bytes }
    }

    func save(_ session: Session, over previous: StoredSession?, lease: SessionLease) throws(PresentationError) -> Int {
        try state.withLock { state throws(PresentationError) in
            if let failure = state.failure { throw failure }
            state.saved.append(session)
            state.previous.append(previous)
        }
        return Self.bytes(of: session)
    }

    func save(
        _ session: Session, over previous: StoredSession?, lease: SessionLease,
        then done: @escaping @Sendable (Result<Int, PresentationError>) -> Void
    ) {
        state.withLock { $0.queued.append((session, previous, done)) }
    }

    /// Writes the queued saves in order, or fails them with the set failure, telling each.
    func land() {
        while let (session, previous, done) = state.withLock({ $0.queued.isEmpty ? nil : $0.queued.removeFirst() }) {
            let failure = state.withLock { state -> PresentationError? in
                if let failure = state.failure { return failure }
                state.saved.append(session)
                state.previous.append(previous)
                return nil
            }
            done(failure.map { .failure($0) } ?? .success(Self.bytes(of: session)))
        }
    }

    func remove(_ sessions: [StoredSession]) throws(PresentationError) {
        try state.withLock { state throws(PresentationError) in
            if let failure = state.failure { throw failure }
            state.removed += sessions
        }
    }

    func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError) {}

    var storedBytes: Int { state.withLock { $0.storedBytes } }

    var statistics: JournalStatistics {
        state.withLock { state in
            JournalStatistics(
                transactions: state.saved.count, writes: state.saved.count, syncs: state.saved.count,
                queuedWrites: state.queued.count, storedBytes: 0, engineMemoryBytes: 0)
        }
    }
}

@Suite("Store with a journal")
struct JournalHookTests {
    /// A store over a `RecordingJournal`, holding one session of one screen.
    static func journaledSession() throws -> (RecordingJournal, InMemorySessionStore, SessionID) {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(journal: journal)
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        return (journal, store, id)
    }

    @Test("Every committed change is handed to the journal first, in order")
    func changesAreWritten() throws {
        let (journal, store, id) = try Self.journaledSession()
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        _ = try store.update(id) { _ in }
        #expect(journal.saved.map(\.revision) == [1, 2], "a read-only update writes nothing")
        #expect(journal.saved.last == store.session(id))
    }

    @Test("Each write tells the journal what it holds of the session: the last written, with the bytes it answered")
    func previousWrites() throws {
        let (journal, store, id) = try Self.journaledSession()
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        // Queued, as the API's changes are: the answer the store keeps comes with the landing.
        store.update(id, { session in try session.run(.push(Fixture.spec("b"))) }, completion: { _ in })
        journal.land()
        journal.fail(with: .storageFull)
        #expect(throws: PresentationError.storageFull) {
            try store.update(id) { session in try session.run(.pop(result: nil)) }
        }
        journal.fail(with: nil)
        _ = try store.update(id) { session in try session.run(.pop(result: nil)) }
        let saved = journal.saved
        #expect(saved.map(\.revision) == [1, 2, 3, 4])
        // Each write over the one before it; the refused one changed nothing to write over.
        let expected = [nil] + saved.dropLast().map { StoredSession($0, bytes: RecordingJournal.bytes(of: $0)) }
        #expect(journal.previous == expected)
        #expect(try store.delete(id))
        #expect(journal.removedSessions == [StoredSession(saved[3], bytes: 1_004)])
    }

    /// `--max-stored-bytes` is the most the file may hold: once it holds that many, creation
    /// is refused, one byte short it is not; sessions already there go on changing.
    @Test("Creation is refused once the journal holds the maximum stored bytes, not before")
    func storedBytesLimit() throws {
        let journal = RecordingJournal()
        let store = InMemorySessionStore(limits: Limits(maxStoredBytes: 5_000), journal: journal)
        journal.report(storedBytes: 4_999)
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        journal.report(storedBytes: 5_000)
        #expect(throws: PresentationError.storageLimitReached(limit: 5_000)) {
            try store.create(root: Fixture.spec("home"), now: Fixture.created)
        }
        #expect(store.count == 1)
        _ = try store.update(id) { session in try session.run(.push(Fixture.spec("a"))) }
        #expect(journal.saved.map(\.revision) == [1, 2])
    }

    @Test("A change the journal refuses is not made: the session and its watchers see nothing")
    func refusedChange() throws {
        let (journal, store, id) = try Self.journaledSession()
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
        let (journal, store, id) = try Self.journaledSession()
        journal.fail(with: .storageFull)
        #expect(throws: PresentationError.storageFull) { try store.delete(id) }
        #expect(store.session(id) != nil)
        journal.fail(with: nil)
        #expect(try store.delete(id))
        #expect(journal.removed == [id])
        #expect(store.session(id) == nil)
    }

    @Test("Only a store without a journal changes in place: what the change saw is at once what readers see")
    func changesInPlace() throws {
        let memory = InMemorySessionStore()
        let (journal, durable, _) = try Self.journaledSession()
        #expect(memory.changesInPlace && !durable.changesInPlace)
        for store in [memory, durable] {
            let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
            let seen = Mutex<Session?>(nil)
            store.change(id, { session in
                try session.run(.push(Fixture.spec("a")))
                seen.withLock { $0 = session }
            }, completion: { _ in })
            let changed = try #require(seen.withLock { $0 })
            // The API answers from the session its change saw only when the store says this holds.
            #expect((store.session(id) == changed) == store.changesInPlace)
            journal.land()
            #expect(store.session(id) == changed)
        }
    }

    @Test("A queued change shows only once written; changes made meanwhile wait, then apply on top, in order")
    func queuedChanges() throws {
        let (journal, store, id) = try Self.journaledSession()
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        let results = Mutex<[String]>([])
        for name in ["a", "b"] {
            store.update(id, { session in try session.run(.push(Fixture.spec(name))); return session.revision }) {
                result in results.withLock { $0.append("\(name): \((try? result.get()).map(String.init) ?? "failed")") }
            }
        }
        // The first change's write is queued; the second waits for it to land before it runs.
        #expect(journal.queuedRevisions == [2])
        #expect(store.session(id)?.revision == 1, "readers see the session as last written")
        #expect(results.withLock { $0 }.isEmpty && log.all.isEmpty)
        journal.land()
        #expect(results.withLock { $0 } == ["a: 2", "b: 3"])
        #expect(store.session(id)?.root.path.map(\.name) == ["home", "a", "b"])
        #expect(journal.saved.map(\.revision) == [1, 2, 3])
        let token = try #require(store.session(id)).tokenDigest
        #expect(log.all == [.revised(2, token: token), .revised(3, token: token)])
    }

    @Test("A queued change the journal refuses leaves the session as it was; the next applies to that")
    func queuedRefusal() throws {
        let (journal, store, id) = try Self.journaledSession()
        let before = try #require(store.session(id))
        let outcomes = Mutex<[Result<Int, PresentationError>]>([])
        let record = { @Sendable (result: Result<Int, any Error>) in
            outcomes.withLock { $0.append(result.mapError { $0 as? PresentationError ?? .storageFailed("\($0)") }) }
        }
        store.update(id, { session in try session.run(.push(Fixture.spec("a"))); return session.revision }, completion: record)
        journal.fail(with: .storageFull)
        journal.land()
        #expect(outcomes.withLock { $0 } == [.failure(.storageFull)])
        #expect(store.session(id) == before)
        journal.fail(with: nil)
        store.update(id, { session in try session.run(.push(Fixture.spec("b"))); return session.revision }, completion: record)
        journal.land()
        #expect(outcomes.withLock { $0 }.last == .success(2))
        #expect(store.session(id)?.root.path.map(\.name) == ["home", "b"])
    }

    @Test("A change that writes nothing, or throws, answers at once and lets the next one run")
    func unwrittenChanges() throws {
        let (journal, store, id) = try Self.journaledSession()
        let answered = Mutex(0)
        store.update(id, { session in session.revision }) { result in
            #expect((try? result.get()) == 1)
            answered.withLock { $0 += 1 }
        }
        store.update(id, { session in try session.run(.pop(result: nil)) }) { result in
            #expect(throws: PresentationError.self) { try result.get() }
            answered.withLock { $0 += 1 }
        }
        #expect(answered.withLock { $0 } == 2)
        #expect(journal.queuedRevisions.isEmpty)
        store.update(id, { session in try session.run(.push(Fixture.spec("a"))) }) { _ in }
        #expect(journal.queuedRevisions == [2])
        journal.land()
    }

    @Test("A blocking change waits for the queued one's write, and is made on top of it")
    func blockingWaitsForQueued() async throws {
        let (journal, store, id) = try Self.journaledSession()
        store.update(id, { session in try session.run(.push(Fixture.spec("a"))) }) { _ in }
        let blocked = Task.detached {
            _ = try store.update(id) { session in try session.run(.push(Fixture.spec("b"))) }
            return store.session(id)?.root.path.map(\.name)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(journal.saved.map(\.revision) == [1], "the blocking change must not overtake the queued one")
        journal.land()
        #expect(try await blocked.value == ["home", "a", "b"])
        #expect(journal.saved.map(\.revision) == [1, 2, 3])
    }

    @Test("Thousands of refused changes queued behind one write all get their answer when it lands")
    func manyRefusedChangesQueued() throws {
        let (journal, store, id) = try Self.journaledSession()
        store.update(id, { session in try session.run(.push(Fixture.spec("a"))) }) { _ in }
        let refused = Mutex(0)
        for _ in 0..<5_000 {
            store.update(id, { session in try session.run(.popTo(ScreenID(rawValue: "s999")!)) }) { result in
                if case .failure = result { refused.withLock { $0 += 1 } }
            }
        }
        #expect(refused.withLock { $0 } == 0, "they wait for the write ahead of them")
        journal.land()
        #expect(refused.withLock { $0 } == 5_000)
        // The turn is free again: the next change runs and queues its write at once.
        store.update(id, { session in try session.run(.push(Fixture.spec("b"))) }) { _ in }
        #expect(journal.queuedRevisions == [3])
        journal.land()
        #expect(store.session(id)?.root.path.map(\.name) == ["home", "a", "b"])
    }

    @Test("A blocking delete takes its turn: changes queued before it land first, and it removes what they wrote")
    func deletedWhileQueued() throws {
        let (journal, store, id) = try Self.journaledSession()
        let outcomes = Mutex<[String]>([])
        @Sendable func change(_ name: String) {
            store.update(id, { session in try session.run(.push(Fixture.spec(name))) }) { result in
                outcomes.withLock { $0.append("\(name): " + ((try? result.get()) == nil ? "failed" : "applied")) }
            }
        }
        change("a")
        change("b")
        // A thread, not a task: a task blocked here would hold one of the few threads that
        // every test's tasks share.
        let deleted = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            deleted.withLock { $0 = try? store.delete(id) }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(journal.removed.isEmpty, "the delete waits for the changes queued before it")
        journal.land()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(deleted.withLock { $0 } == true)
        change("c")
        #expect(outcomes.withLock { $0 } == ["a: applied", "b: applied", "c: failed"])
        #expect(journal.removed == [id])
        let removed = journal.removedSessions.first
        #expect(removed?.revision == 3, "the removal names the revision last written")
        #expect(removed?.bytes == 1_003, "and the bytes that write answered")
        #expect(store.session(id) == nil)
    }
}
