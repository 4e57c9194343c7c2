#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// Deletion and expiry: the entry closed, its row removed through the journal, its watchers handed back.
extension SessionEntry {
    /// Deletion through a journal, without holding the caller: in its turn, so that a change
    /// whose write is under way lands first, the row is removed, and then the entry closed.
    /// `completion` gets the watchers to tell, nil when the entry was closed already (deleted,
    /// or expired meanwhile), or the error that kept the row, and the session, in place:
    /// `.revisionMismatch` when the session is at none of `revisions` (nil: any will do),
    /// `.tokenReplaced` when its token is no longer `token` (nil: any will do).
    func close(
        journal: any SessionJournal, ifAt revisions: [Int]?, heldBy token: SessionTokenDigest?,
        completion: @escaping @Sendable (Result<[Watch]?, PresentationError>) -> Void
    ) {
        enqueue { [self] in
            let found = state.withLock { state -> Result<StoredSession?, PresentationError> in
                if state.closed { return .success(nil) }
                if let failure = Self.mismatch(state.session, revisions, token) { return .failure(failure) }
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
    /// `.revisionMismatch` when the session is at none of `revisions` (nil: any will do), and
    /// `.tokenReplaced` when its token is no longer `token`, judged at once: no change lands
    /// after it, the session taking none while it closes.
    func close(
        ifAt revisions: [Int]?, heldBy token: SessionTokenDigest?,
        then completion: @escaping @Sendable (Result<[Watch]?, PresentationError>) -> Void
    ) {
        let closed = state.withLock { state -> Result<[Watch]?, PresentationError>? in
            guard !state.closed, !state.closing else { return .success(nil) }
            if let failure = Self.mismatch(state.session, revisions, token) { return .failure(failure) }
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
            if let failure = Self.mismatch(state.session, revisions, nil) { throw failure }
            try journal?.remove([state.stored])
            return Self.close(&state)
        }
    }

    /// A deletion's condition refused: the session's token is no longer `token`, or it is at
    /// none of `revisions` (nil: any will do). The token first, as a change judges it before
    /// its If-Match: a request whose token was revoked learns nothing of the revision.
    private static func mismatch(_ session: Session, _ revisions: [Int]?, _ token: SessionTokenDigest?)
        -> PresentationError?
    {
        if let token, !session.tokenDigest.matches(token) { return .tokenReplaced }
        guard let revisions, !revisions.contains(session.revision) else { return nil }
        return .revisionMismatch(current: session.revision)
    }

    /// Closes the entry if its lease ran out by `now`, handing back its watchers and the session
    /// as last written, for the journal; nil when it is alive, or busy.
    ///
    /// A session whose turn is held is left to the next sweep: a change or a deletion of it is
    /// being written, and the journal does not yet say what that write stored. Closed then, it
    /// was removed with the bytes before the write (which counted them too), or removed twice.
    /// So is one whose change is still telling its watchers (without a journal), as a deletion
    /// waits for it: closed then, a stream was told `deleted` and found no session to read
    /// the change from, which was made (`telling` holds the `closing` flag too).
    func closeIfExpired(at now: Date) -> (watchers: [Watch], stored: StoredSession)? {
        state.withLock { state in
            guard !state.closed, !state.busy, state.telling == 0, state.lease.isExpired(at: now) else { return nil }
            return (Self.close(&state), state.stored)
        }
    }

    /// Marks the entry no session any more and hands back its watchers, in order, to be told.
    private static func close(_ state: inout State) -> [Watch] {
        state.closed = true
        defer { state.watchers = [:] }
        return ordered(state.watchers)
    }
}
