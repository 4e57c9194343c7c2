#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import Synchronization

/// One stored session, its lease and its watchers, behind a lock of its own so that sessions never wait on each other.
///
/// With a journal, a change is written under this lock before it is committed here: a change
/// that cannot be written is not made, and two changes of one session reach the disk in order.
final class SessionEntry: Sendable {
    private struct State {
        var session: Session
        var lease: SessionLease
        /// The last access the journal has; reads move `lease.lastAccess` past it without writing.
        var persistedAccess: Date
        /// By registration number, so watchers are told in the order they registered.
        var watchers: [Int: Watch] = [:]
        var nextWatcher = 0
        /// True until a new session is written, and after deletion or expiry: the entry is then no session.
        var closed: Bool
        /// With a journal: a change holds the turn from its start until its write is durable or
        /// failed, so that one write of this session is in flight at a time, each change made on
        /// top of the last one written. Those that come meanwhile wait here, in order.
        var busy = false
        /// Without a journal: changes whose watchers are being told, outside the lock (the low 15
        /// bits: at most one a thread), and whether a deletion waits for them (`closingFlag`; its
        /// completion in `SessionEntry.closings`), so that what they tell is read, and sent,
        /// before it (`close(ifAt:then:)`). 16 bits, in what would be padding: a field for the
        /// rare waiting deletion's completion cost every session 16 bytes.
        var telling: UInt16 = 0
        static let closingFlag: UInt16 = 0x8000
        /// A deletion waits for `telling` to reach 0: the session takes no change meanwhile.
        var closing: Bool { telling & Self.closingFlag != 0 }
        /// With a journal: the bytes the session takes there, as its last save answered. 32
        /// bits, in what would be padding: a session is far smaller (`Limits`); clamped all the same.
        var storedBytes: UInt32 = 0
        var waiting: [Turn] = []

        /// What the journal holds of the session: the last written, as the store keeps it.
        var stored: StoredSession { StoredSession(session, bytes: Int(storedBytes)) }
    }

    /// A change waiting for the turn; run, it says whether it still holds the turn (its write
    /// is queued, or a blocked caller now has it) or has passed it on (nothing to write).
    private typealias Turn = @Sendable () -> TurnEnd

    private enum TurnEnd {
        case kept
        case passed
    }

    private let state: Mutex<State>
    /// The completions of deletions waiting for changes to finish telling (`State.closingFlag`),
    /// by entry: a deletion racing a change of a watched session in memory, so rare enough for
    /// one table, rather than a field in every session.
    private static let closings = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])

    /// `open: false` for a session being created, which `open(storedBytes:)` shows once it is
    /// written; `storedBytes` for one read back from the journal.
    init(session: Session, lease: SessionLease, open: Bool = true, storedBytes: Int = 0) {
        state = Mutex(
            State(
                session: session, lease: lease, persistedAccess: lease.lastAccess, closed: !open,
                storedBytes: UInt32(clamping: storedBytes)))
    }

    /// Shows a new session, written (with a journal) in `storedBytes`.
    func open(storedBytes: Int = 0) {
        state.withLock { state in
            state.closed = false
            state.storedBytes = UInt32(clamping: storedBytes)
        }
    }

    /// The session unless closed or expired at `now`; the read keeps the session alive when
    /// `counts` says it is a use (its owner's, not a request that failed the token check).
    func session(at now: Date, countingAsUse counts: (borrowing Session) -> Bool) -> Session? {
        state.withLock { state in
            guard !state.closed, !state.lease.isExpired(at: now) else { return nil }
            if counts(state.session) { state.lease = state.lease.used(at: now) }
            return state.session
        }
    }

    /// `body` run on the session in place unless closed or expired at `now` (then false); the
    /// read keeps the session alive when `body` says it was a use.
    func read(at now: Date, _ body: (borrowing Session) -> Bool) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.lease.isExpired(at: now) else { return false }
            if body(state.session) { state.lease = state.lease.used(at: now) }
            return true
        }
    }

    /// The session as it is, without counting as a use (listings, the sweep).
    var current: Session? {
        state.withLock { $0.closed ? nil : $0.session }
    }

    var lease: SessionLease {
        state.withLock { $0.lease }
    }

    /// Runs `body` on a copy of the session and commits the copy only if `body` returns and,
    /// with a journal, the copy is written.
    func update<R>(at now: Date, journal: (any SessionJournal)?, _ body: (inout Session) throws -> R) throws -> R {
        guard journal != nil else { return try apply(at: now, journal: nil, body) }
        takeTurn()
        defer { passTurn() }
        return try apply(at: now, journal: journal, body)
    }

    /// Runs `body` on the session itself, with no copy, for a store without a journal and a
    /// body that leaves the session as it found it whenever it throws (the caller's promise).
    ///
    /// A copy would share the session's arrays with the stored one, so that every array the
    /// change touched was copied whole (copy-on-write); in place, arrays no reader holds
    /// change where they are.
    func updateInPlace(at now: Date, _ body: (inout Session) throws -> Void) throws {
        try changeOpen(at: now) { state, _ in try body(&state.session) }
    }

    /// The same for a store with a journal, without waiting for the disk: `body` runs (now, or
    /// after the changes already waiting for this session) on a copy, the copy's write is queued,
    /// and `completion` gets the result on the journal's thread once the copy is written and is
    /// the session, or the error that left the session as it was. Readers see the session as
    /// last written meanwhile.
    func update<R: Sendable>(
        at now: Date, journal: any SessionJournal, _ body: @escaping @Sendable (inout Session) throws -> R,
        completion: @escaping @Sendable (Result<R, any Error>) -> Void
    ) {
        enqueue { [self] in self.change(at: now, journal: journal, body, completion: completion) }
    }

    /// Runs `turn` now if no change holds the turn, else after those before it.
    private func enqueue(_ turn: @escaping Turn) {
        let mine = state.withLock { state in
            if state.busy {
                state.waiting.append(turn)
                return false
            }
            state.busy = true
            return true
        }
        if mine { run(turn) }
    }

    /// Deletion through a journal, without holding the caller: in its turn, so that a change
    /// whose write is under way lands first, the row is removed, and then the entry closed.
    /// `completion` gets the watchers to tell, nil when the entry was closed already (deleted,
    /// or expired meanwhile), or the error that kept the row, and the session, in place:
    /// `.revisionMismatch` when the session is at none of `revisions` (nil: any will do).
    func close(
        journal: any SessionJournal, ifAt revisions: [Int]?,
        completion: @escaping @Sendable (Result<[Watch]?, PresentationError>) -> Void
    ) {
        enqueue { [self] in
            let found = state.withLock { state -> Result<StoredSession?, PresentationError> in
                if state.closed { return .success(nil) }
                if let failure = Self.mismatch(state.session, revisions) { return .failure(failure) }
                return .success(state.stored)
            }
            guard case .success(let stored?) = found else {
                completion(found.map { _ in nil })
                return .passed
            }
            journal.remove([stored]) { [self] failure in
                if let failure {
                    completion(.failure(failure))
                } else {
                    completion(.success(closeNow()))
                }
                passTurn()
            }
            return .kept
        }
    }

    /// Marks the entry deleted and hands back its watchers; nil when it was closed already.
    private func closeNow() -> [Watch]? {
        state.withLock { state in
            guard !state.closed else { return nil }
            return Self.close(&state)
        }
    }

    /// Deletion without a journal: closes the entry once no change is telling its watchers,
    /// and hands `completion` the watchers to tell, nil when it was closed (or closing) already.
    /// Closed at once, a change told just before would find no session to read, and an event
    /// stream would end with `deleted` without that change, which was answered: `.deleted` must
    /// be the last word, as it is with a journal, whose changes hold the turn while they tell.
    /// `.revisionMismatch` when the session is at none of `revisions` (nil: any will do), judged
    /// at once: no change lands after it, the session taking none while it closes.
    func close(ifAt revisions: [Int]?, then completion: @escaping @Sendable (Result<[Watch]?, PresentationError>) -> Void) {
        let closed = state.withLock { state -> Result<[Watch]?, PresentationError>? in
            guard !state.closed, !state.closing else { return .success(nil) }
            if let failure = Self.mismatch(state.session, revisions) { return .failure(failure) }
            guard state.telling == 0 else {
                // Kept before the lock is let go: the last change to finish telling looks it up.
                let entry = ObjectIdentifier(self)
                Self.closings.withLock { $0[entry] = { [self] in completion(.success(closeNow())) } }
                state.telling |= State.closingFlag
                return nil
            }
            return .success(Self.close(&state))
        }
        if let closed { completion(closed) }
    }

    /// Holding the turn: makes the change and queues its write, keeping the turn until the
    /// write is done; passes it at once when there is nothing to write.
    private func change<R: Sendable>(
        at now: Date, journal: any SessionJournal, _ body: (inout Session) throws -> R,
        completion: @escaping @Sendable (Result<R, any Error>) -> Void
    ) -> TurnEnd {
        // Plain locals, not a `Result` of the three: a `Result` holding the session was copied
        // four times a durable change through the runtime's generic witnesses, each copy
        // retaining every array of the session (docs/performance.md, item 82).
        var draft: Session?
        let lease: SessionLease
        let previous: StoredSession
        let result: R
        do {
            (lease, previous, result) = try state.withLock { state throws -> (SessionLease, StoredSession, R) in
                guard !state.closed, !state.lease.isExpired(at: now) else { throw PresentationError.sessionNotFound }
                // The lease moves with the change, once it is made: a change refused (a wrong
                // token among the reasons) or not written keeps no session alive.
                let lease = state.lease.used(at: now)
                var changed = state.session
                let result = try body(&changed)
                // Nothing changed, so nothing to write: the result is that of a read.
                if changed.revision != state.session.revision || changed != state.session {
                    draft = changed
                } else {
                    state.lease = lease
                }
                return (lease, state.stored, result)
            }
        } catch {
            completion(.failure(error))
            return .passed
        }
        guard let draft else {
            completion(.success(result))
            return .passed
        }
        journal.save(draft, over: previous, lease: lease) { [self] written in
            let notice = state.withLock { state -> (watchers: [Watch], change: SessionChange)? in
                guard case .success(let bytes) = written else { return nil }
                state.lease = state.lease.used(at: lease.lastAccess)
                state.persistedAccess = max(state.persistedAccess, lease.lastAccess)
                state.storedBytes = UInt32(clamping: bytes)
                let revised = draft.revision != state.session.revision
                state.session = draft
                return revised ? (Self.ordered(state.watchers), .revised(draft.revision, token: draft.tokenDigest)) : nil
            }
            let failure: PresentationError? = if case .failure(let error) = written { error } else { nil }
            if let notice {
                for watch in notice.watchers { watch.tell(notice.change) }
            }
            // Answered before the next change runs, so that one session's answers keep their order.
            completion(failure.map { .failure($0) } ?? .success(result))
            passTurn()
        }
        return .kept
    }

    /// Waits until no change of this session holds the turn, and takes it.
    private func takeTurn() {
        let wake = state.withLock { state -> DispatchSemaphore? in
            guard state.busy else {
                state.busy = true
                return nil
            }
            let wake = DispatchSemaphore(value: 0)
            state.waiting.append {
                wake.signal()
                return .kept
            }
            return wake
        }
        // Woken by `passTurn`, which hands the turn over without freeing it.
        wake?.wait()
    }

    /// Hands the turn to the first change waiting for it, or frees it.
    private func passTurn() {
        if let next = nextTurn() { run(next) }
    }

    /// Runs `turn`, then, while each passes the turn on, the next one waiting: a loop, so that
    /// thousands of changes that write nothing (refused ones) queued behind one write do not
    /// nest thousands of calls deep on the thread that lands it.
    private func run(_ turn: @escaping Turn) {
        var current: Turn? = turn
        while let turn = current {
            current = turn() == .passed ? nextTurn() : nil
        }
    }

    /// The first change waiting for the turn, taken off the queue; nil after freeing the turn.
    private func nextTurn() -> Turn? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
    }

    /// Runs `body` on a copy under the lock and commits the copy if `body` returns and, with a
    /// journal, the copy is written (the caller holds the turn then).
    private func apply<R>(at now: Date, journal: (any SessionJournal)?, _ body: (inout Session) throws -> R) throws -> R {
        var result: R?
        try changeOpen(at: now) { state, lease in
            var draft = state.session
            result = try body(&draft)
            if let journal, draft.revision != state.session.revision || draft != state.session {
                state.storedBytes = UInt32(clamping: try journal.save(draft, over: state.stored, lease: lease))
                state.persistedAccess = lease.lastAccess
            }
            state.session = draft
        }
        guard let result else { preconditionFailure("update returned without a result") }
        return result
    }

    /// Runs `change` on the state under the lock unless the session is closed or expired at
    /// `now`, then tells the watchers, outside the lock, when the revision moved. `change` is
    /// given the lease the session has once it returns: a change made keeps the session alive,
    /// one that throws (refused, or not written) leaves its lease as it was.
    private func changeOpen(at now: Date, _ change: (inout State, SessionLease) throws -> Void) throws {
        let notice = try state.withLock { state throws -> (watchers: [Watch], change: SessionChange)? in
            guard !state.closed, !state.closing, !state.lease.isExpired(at: now) else {
                throw PresentationError.sessionNotFound
            }
            let lease = state.lease.used(at: now)
            let revision = state.session.revision
            try change(&state, lease)
            state.lease = lease
            guard state.session.revision != revision, !state.watchers.isEmpty else { return nil }
            state.telling += 1
            return (Self.ordered(state.watchers), .revised(state.session.revision, token: state.session.tokenDigest))
        }
        guard let notice else { return }
        for watch in notice.watchers {
            watch.tell(notice.change)
        }
        let closesNow = state.withLock { state -> Bool in
            state.telling -= 1
            return state.telling == State.closingFlag
        }
        if closesNow {
            let entry = ObjectIdentifier(self)
            Self.closings.withLock { $0.removeValue(forKey: entry) }?()
        }
    }

    func addWatcher(_ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let key = state.nextWatcher
            state.nextWatcher += 1
            // Weak: a watch kept after its session is deleted must not keep the entry alive.
            let watch = Watch(onChange: onChange) { [weak self] in self?.removeWatcher(key) }
            state.watchers[key] = watch
            return watch
        }
    }

    private func removeWatcher(_ key: Int) {
        state.withLock { _ = $0.watchers.removeValue(forKey: key) }
    }

    /// Marks the entry deleted once the journal, when there is one, has removed its row, and
    /// hands back its watchers for the caller to tell outside the lock; nil when already closed.
    ///
    /// With a journal, in the session's turn: a change whose write is under way lands first, so
    /// that the removal takes away the bytes that write stored, not those of the one before. Under
    /// the lock alone, the removal also waited on the journal's thread while that thread waited
    /// for this lock to land the change: neither went on.
    func close(journal: (any SessionJournal)?, ifAt revisions: [Int]? = nil) throws(PresentationError) -> [Watch]? {
        if journal != nil { takeTurn() }
        defer { if journal != nil { passTurn() } }
        return try state.withLock { state throws(PresentationError) -> [Watch]? in
            guard !state.closed, !state.closing else { return nil }
            if let failure = Self.mismatch(state.session, revisions) { throw failure }
            try journal?.remove([state.stored])
            return Self.close(&state)
        }
    }

    /// A deletion's If-Match refused: the session is at none of `revisions` (nil: any will do).
    private static func mismatch(_ session: Session, _ revisions: [Int]?) -> PresentationError? {
        guard let revisions, !revisions.contains(session.revision) else { return nil }
        return .revisionMismatch(current: session.revision)
    }

    /// Closes the entry if its lease ran out by `now`, handing back its watchers and the session
    /// as last written, for the journal; nil when it is alive, or busy.
    ///
    /// A session whose turn is held is left to the next sweep: a change or a deletion of it is
    /// being written, and the journal does not yet say what that write stored. Closed then, it
    /// was removed with the bytes before the write (which counted them too), or removed twice.
    func closeIfExpired(at now: Date) -> (watchers: [Watch], stored: StoredSession)? {
        state.withLock { state in
            guard !state.closed, !state.busy, !state.closing, state.lease.isExpired(at: now) else { return nil }
            return (Self.close(&state), state.stored)
        }
    }

    /// The lease when reads have moved it past what the journal has, for a batched touch.
    var unwrittenLease: SessionLease? {
        state.withLock { state in
            state.closed || state.lease.lastAccess <= state.persistedAccess ? nil : state.lease
        }
    }

    func markWritten(_ lease: SessionLease) {
        state.withLock { state in
            state.persistedAccess = max(state.persistedAccess, lease.lastAccess)
        }
    }

    /// Marks the entry no session any more and hands back its watchers, in order, to be told.
    private static func close(_ state: inout State) -> [Watch] {
        state.closed = true
        defer { state.watchers = [:] }
        return ordered(state.watchers)
    }

    private static func ordered(_ watchers: [Int: Watch]) -> [Watch] {
        // Most sessions have no watcher: skip the sort's allocations for them.
        if watchers.isEmpty { return [] }
        return watchers.sorted { $0.key < $1.key }.map(\.value)
    }
}
