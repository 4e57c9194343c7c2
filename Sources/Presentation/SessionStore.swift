#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
import Synchronization

/// Where sessions live: in memory, and on disk when the store has a journal, behind the same promises.
public protocol SessionStore: Sendable {
    /// A new session with a fresh id and token; `.tooManySessions(limit:)` when the store is full.
    ///
    /// The store keeps only the token's digest; the returned token is the caller's to hand out.
    ///
    /// The session lives `timeToLive` seconds unused (nil: `limits.sessionTTL`; capped at
    /// `limits.maxSessionTTL`). A durable store returns once the session is on disk; past
    /// `limits.maxStoredBytes` it refuses with `.storageLimitReached(limit:)`.
    func create(root: ScreenSpec, timeToLive: Int?, now: Date) throws(PresentationError) -> NewSession

    /// The same, without holding the calling thread while a durable store writes: `completion`
    /// gets what `create` would have returned or thrown, maybe before this returns (in memory),
    /// maybe later on the journal's thread (once the session is on disk). The same rules as
    /// `change(_:_:completion:)`'s completion hold for it.
    func create(
        root: ScreenSpec, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void)

    /// A new session, with a fresh id and token, holding what `imported` holds; it must have
    /// been checked against this store's `limits`. The same limits and errors as `create`.
    func importSession(_ imported: ImportedSession, timeToLive: Int?, now: Date) throws(PresentationError)
        -> NewSession

    /// `importSession` with a completion, as `create(root:timeToLive:now:completion:)` is to `create`.
    func importSession(
        _ imported: ImportedSession, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void)

    /// A snapshot of the session, nil when there is none. The read keeps the session alive
    /// when `counts` says it is a use: a request that fails the session's token check must
    /// not keep someone else's session alive.
    func session(_ id: SessionID, countingAsUse counts: (borrowing Session) -> Bool) -> Session?

    /// Calls `body` with the session, read in place under its lock (no copy of the session
    /// is made); false, without calling it, when there is none. The read keeps the session
    /// alive when `body` returns true, as `session(_:countingAsUse:)` does when `counts` does.
    /// `body` must be short: changes of that session wait for it.
    ///
    /// Not generic: every GET comes through here, and the API holds its store as `any
    /// SessionStore`, so a generic requirement had its metadata looked up at every call
    /// (docs/performance.md, item 47). `body` keeps its answer in a variable of the caller's.
    func read(_ id: SessionID, _ body: (borrowing Session) -> Bool) -> Bool

    /// The session's lease (its idle deadline), without counting as a use; nil when there is none.
    func lease(of id: SessionID) -> SessionLease?

    /// Runs `body` on the session under that session's lock (other sessions proceed in parallel).
    ///
    /// Changes made by `body` are committed only if it returns normally and, in a durable store,
    /// only once they are on disk (`.storageFull`, `.storageFailed` otherwise); if anything throws,
    /// the stored session is left exactly as it was. Watchers are told after the lock is released,
    /// only when the revision changed. Throws `PresentationError.sessionNotFound` when there is no
    /// such session, or it expired.
    func update<R>(_ id: SessionID, _ body: (inout Session) throws -> R) throws -> R

    /// The same, without holding the calling thread while a durable store writes: `completion`
    /// gets nil where `update` would have returned, or what it would have thrown, maybe before
    /// this returns (a store in memory), maybe later on another thread (once the change is on
    /// disk). Changes of one session still apply one at a time, in the order they came.
    /// `completion`, and the watchers told of the change, may run on one of the journal's
    /// threads (SQLite's: on the sync thread once the change is on disk, on the writer thread
    /// when its transaction failed): they must not make a blocking durable change themselves
    /// (that would wait for those very threads).
    ///
    /// Unlike `update`, `body` must leave the session as it found it whenever it throws: a
    /// store in memory runs it on the session itself, not on a copy (a journal still needs
    /// one, for readers to see the last written session meanwhile). Copying the session made
    /// every array the change touched be copied whole.
    ///
    /// Not generic, unlike `update`: every change request comes through here, and through a
    /// protocol a generic method runs unspecialised, looking up `Result<R, _>` and `R?` at run
    /// time, several times a request. A caller that needs `body`'s result keeps it itself
    /// (the `update(_:_:completion:)` below does).
    func change(
        _ id: SessionID, _ body: @escaping @Sendable (inout Session) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void)

    /// True when `change` runs its body on the stored session itself and the change is made
    /// once the body returns (a store in memory): what the body reads of the session after
    /// changing it is then what every reader sees next, so an answer can be made from it there
    /// and then, without a copy of the session for later. False when a journal writes the
    /// change first: the body has a copy, which may yet be refused.
    var changesInPlace: Bool { get }

    /// Removes the session (from disk too, before it returns) and tells its watchers `.deleted`;
    /// false when there was none. When the removal cannot be written the session stays. With
    /// `revisions`, only a session at one of them is removed; at another it stays and this
    /// throws `.revisionMismatch` (If-Match), judged under the session's lock so that no change
    /// lands between the check and the removal.
    func delete(_ id: SessionID, ifAt revisions: [Int]?) throws(PresentationError) -> Bool

    /// The same without holding the calling thread while a durable store writes: `completion`
    /// as for `create(root:timeToLive:now:completion:)`. The removal waits for a change of the
    /// session whose write is under way, so that `.deleted` is the last word. With `token`, only
    /// a session that still has that token is removed, else `.tokenReplaced`: judged with
    /// `revisions`, so that a rotation landing between the caller's check and the removal
    /// refuses it, as it refuses a change.
    func delete(
        _ id: SessionID, ifAt revisions: [Int]?, heldBy token: SessionTokenDigest?,
        completion: @escaping @Sendable (Result<Bool, PresentationError>) -> Void)

    /// Calls `onChange` after each change of the session until the watch is cancelled;
    /// nil when there is no such session.
    ///
    /// `onChange` is called with no lock of the store held, but a durable store calls it from
    /// its journal's thread while the session's turn is still held (so that `.deleted` is the
    /// last word): it may read the store and start changes with a completion, and must not
    /// wait for a change or a deletion, of this session or any other, to be written.
    func watch(_ id: SessionID, _ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch?

    /// The same, only while the session is still at `revision` (the caller's last look): else
    /// `.moved` with the session as it is, and no watch. A change landing between a look and a
    /// plain watch is told to no one, and a deletion right after it then leaves the watcher
    /// believing the look's revision was the last.
    func watch(_ id: SessionID, ifAt revision: Int, _ onChange: @escaping @Sendable (SessionChange) -> Void)
        -> WatchStart

    /// Up to `limit` sessions whose ids sort after `cursor` (any spelling, see
    /// `SessionID.sorts(after:)`), in id order: a page of an administrator's listing. Not
    /// for the request path: it looks at every session.
    func sessions(after cursor: String?, limit: Int) -> [Session]

    /// The number of sessions.
    var count: Int { get }

    var limits: Limits { get }

    /// What the journal has written and holds; nil for a store that keeps sessions only in memory.
    var journalStatistics: JournalStatistics? { get }

    /// The bound on the process's memory past which new sessions are refused; nil without one.
    var memoryBudget: MemoryBudget? { get }

    /// The bound on what each session may have written a second; nil without one.
    var writeBudget: WriteBudget? { get }
}

extension SessionStore {
    /// Counts as a use of the session by a client following it (an event stream, a long poll)
    /// while `openedWith` is still its token: the owner's use, not a revoked one's.
    public func renew(_ id: SessionID, followedWith openedWith: SessionTokenDigest) {
        _ = read(id) { $0.tokenDigest.matches(openedWith) }
    }

    /// `delete(_:ifAt:)` whatever the session's revision.
    public func delete(_ id: SessionID) throws(PresentationError) -> Bool {
        try delete(id, ifAt: nil)
    }

    /// `delete(_:ifAt:heldBy:completion:)` whatever the session's revision and token.
    public func delete(_ id: SessionID, completion: @escaping @Sendable (Result<Bool, PresentationError>) -> Void) {
        delete(id, ifAt: nil, heldBy: nil, completion: completion)
    }

    /// A snapshot of the session, nil when there is none; the read counts as a use (a caller
    /// that has checked the token, or the server's own).
    public func session(_ id: SessionID) -> Session? {
        session(id) { _ in true }
    }

    /// `change(_:_:completion:)` with `body`'s result handed to `completion`.
    public func update<R: Sendable>(
        _ id: SessionID, _ body: @escaping @Sendable (inout Session) throws -> R,
        completion: @escaping @Sendable (Result<R, any Error>) -> Void
    ) {
        let result = ResultSlot<R>()
        // On a copy, which replaces the session only when `body` returns: `body` may throw
        // after changing it, which `change` does not allow.
        change(id, { session in
            var draft = session
            result.keep(try body(&draft))
            session = draft
        }) { failure in
            completion(failure.map { .failure($0) } ?? .success(result.take()))
        }
    }

    /// A new session that lives the default time-to-live.
    public func create(root: ScreenSpec, now: Date) throws(PresentationError) -> NewSession {
        try create(root: root, timeToLive: nil, now: now)
    }
}

/// What a change's body made, kept for its completion, which may run on another thread.
private final class ResultSlot<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func keep(_ made: Value) {
        value.withLock { $0 = made }
    }

    /// The value kept; only the completion of a change that succeeded takes it, and that
    /// change's body always kept one.
    func take() -> Value {
        guard let made = value.withLock({ $0.take() }) else { preconditionFailure("a change succeeded without a result") }
        return made
    }
}
