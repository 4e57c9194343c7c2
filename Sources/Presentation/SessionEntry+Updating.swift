#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// Changes: made on a copy (or in place without a journal), written, committed, then told to the watchers.
extension SessionEntry {
    /// Runs `body` on a copy of the session and commits the copy only if `body` returns and,
    /// with a journal, the copy is written.
    /// With a journal, a change that would write is refused while `budget` says the session
    /// has had its share written (`WriteBudget`).
    func update<R>(
        at now: Date, journal: (any SessionJournal)?, budget: WriteBudget?, _ body: (inout Session) throws -> R
    ) throws -> R {
        guard journal != nil else { return try apply(at: now, journal: nil, budget: nil, body) }
        takeTurn()
        defer { passTurn() }
        return try apply(at: now, journal: journal, budget: budget, body)
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
    /// `landing` tells the time once the write lands: the change is made then, and the lease
    /// runs from then too (a write slower than the session's `ttl` otherwise answered a change
    /// whose session was already gone); the journal has the change's start until a tick or the sweep writes the landing (`NearDeadlineRenewals`).
    func update<R: Sendable>(
        at now: Date, landing: @escaping @Sendable () -> Date, journal: any SessionJournal, budget: WriteBudget?,
        _ body: @escaping @Sendable (inout Session) throws -> R,
        completion: @escaping @Sendable (Result<R, any Error>) -> Void
    ) {
        enqueue { [self] in
            self.change(at: now, landing: landing, journal: journal, budget: budget, body, completion: completion)
        }
    }

    /// Holding the turn: makes the change and queues its write, keeping the turn until the
    /// write is done; passes it at once when there is nothing to write.
    private func change<R: Sendable>(
        at now: Date, landing: @escaping @Sendable () -> Date, journal: any SessionJournal, budget: WriteBudget?,
        _ body: (inout Session) throws -> R,
        completion: @escaping @Sendable (Result<R, any Error>) -> Void
    ) -> TurnEnd {
        // Plain locals, not a `Result` of the three: a `Result` holding the session was copied
        // four times a durable change through the runtime's generic witnesses, each copy
        // retaining every array of the session (docs/performance.md, item 82).
        var draft: Session?
        let lease: SessionLease
        let before: SessionLease
        let previous: StoredSession
        let result: R
        do {
            (lease, before, previous, result) = try state.withLock {
                state throws -> (SessionLease, SessionLease, StoredSession, R) in
                guard !state.closed, !state.lease.isExpired(at: now) else { throw PresentationError.sessionNotFound }
                // The lease moves only once the body and the budget let the change through: a
                // change refused (a wrong token among the reasons) keeps no session alive.
                let lease = state.lease.used(at: now)
                var changed = state.session
                let result = try body(&changed)
                // Nothing changed, so nothing to write: the result is that of a read.
                if changed.revision != state.session.revision || changed != state.session {
                    try Self.checkBudget(budget, of: state, changedTo: changed, at: now)
                    draft = changed
                }
                // Moved now for a change to write too, not once it is written: readers meanwhile
                // judged the lease as it was, and a session whose time-to-live ran out during
                // the write answered them 404, then came back with the change, answered 2xx.
                // A write that fails moves it back (below); the sweep writes no lease of a
                // session whose turn is held (`unwrittenLease`), so the disk never has it.
                let before = state.lease
                state.lease = lease
                return (lease, before, state.stored, result)
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
                guard case .success(let bytes) = written else {
                    // Not written, so no use: the lease goes back, unless a read moved it on since.
                    if state.lease.lastAccess == lease.lastAccess { state.lease = before }
                    return nil
                }
                // The lease moved to `lease` when the change was made; it runs from the landing.
                state.lease = state.lease.used(at: landing())
                state.persistedAccess = max(state.persistedAccess, lease.lastAccess)
                state.storedBytes = UInt32(clamping: bytes)
                budget?.charge(draft, writtenTo: journal, over: previous, storedBytes: bytes, at: now)
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

    /// Runs `body` on a copy under the lock and commits the copy if `body` returns and, with a
    /// journal, the copy is written (the caller holds the turn then).
    private func apply<R>(
        at now: Date, journal: (any SessionJournal)?, budget: WriteBudget?, _ body: (inout Session) throws -> R
    ) throws -> R {
        var result: R?
        try changeOpen(at: now) { state, lease in
            var draft = state.session
            result = try body(&draft)
            if let journal, draft.revision != state.session.revision || draft != state.session {
                try Self.checkBudget(budget, of: state, changedTo: draft, at: now)
                let previous = state.stored
                let bytes = try journal.save(draft, over: previous, lease: lease)
                state.storedBytes = UInt32(clamping: bytes)
                state.persistedAccess = lease.lastAccess
                budget?.charge(draft, writtenTo: journal, over: previous, storedBytes: bytes, at: now)
            }
            state.session = draft
        }
        guard let result else { preconditionFailure("update returned without a result") }
        return result
    }

    /// Refuses a change to write while the session has had its share of `budget` written.
    /// Asked once the change is made (on a copy, thrown away then): a change that writes
    /// nothing, a keyed retry's replay among them, is never refused for the rate, and a change
    /// refused for its own reasons says those. A token rotation is allowed more (`WriteBudget`).
    private static func checkBudget(
        _ budget: WriteBudget?, of state: borrowing State, changedTo changed: borrowing Session, at now: Date
    ) throws(PresentationError) {
        guard let budget else { return }
        let rotation = changed.tokenDigest != state.session.tokenDigest
        guard let wait = budget.wait(for: state.session.id, replacingToken: rotation, at: now) else { return }
        throw .writeRateLimited(bytesPerSecond: budget.bytesPerSecond, retryAfter: wait)
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
}
