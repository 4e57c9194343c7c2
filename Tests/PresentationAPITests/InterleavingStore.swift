import Foundation
import Presentation
import Synchronization

/// A store that runs a test's work just before and just after the next watch is registered:
/// the one moment of opening an event stream that no request can reach, between the stream's
/// look at the session and its watch. Everything else is the wrapped store's.
final class InterleavingStore: SessionStore {
    let inner: InMemorySessionStore
    private let hooks = Mutex<(before: (@Sendable () -> Void)?, after: (@Sendable () -> Void)?)>((nil, nil))

    init(_ inner: InMemorySessionStore) {
        self.inner = inner
    }

    /// Runs `before` ahead of the next watch's registration and `after` once it is made, once each.
    func aroundNextWatch(before: @escaping @Sendable () -> Void, after: @escaping @Sendable () -> Void) {
        hooks.withLock { $0 = (before, after) }
    }

    private func takeBefore() -> (@Sendable () -> Void)? {
        hooks.withLock { hooks in
            defer { hooks.before = nil }
            return hooks.before
        }
    }

    private func takeAfter() -> (@Sendable () -> Void)? {
        hooks.withLock { hooks in
            defer { hooks.after = nil }
            return hooks.after
        }
    }

    func watch(_ id: SessionID, _ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        takeBefore()?()
        defer { takeAfter()?() }
        return inner.watch(id, onChange)
    }

    func watch(_ id: SessionID, ifAt revision: Int, _ onChange: @escaping @Sendable (SessionChange) -> Void)
        -> WatchStart
    {
        takeBefore()?()
        let start = inner.watch(id, ifAt: revision, onChange)
        // Only once a watch is made: a try that found the session moved on registered nothing.
        if case .watching = start { takeAfter()?() }
        return start
    }

    func create(root: ScreenSpec, timeToLive: Int?, now: Date) throws(PresentationError) -> NewSession {
        try inner.create(root: root, timeToLive: timeToLive, now: now)
    }

    func create(
        root: ScreenSpec, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void
    ) {
        inner.create(root: root, timeToLive: timeToLive, now: now, completion: completion)
    }

    func importSession(_ imported: ImportedSession, timeToLive: Int?, now: Date) throws(PresentationError)
        -> NewSession
    {
        try inner.importSession(imported, timeToLive: timeToLive, now: now)
    }

    func importSession(
        _ imported: ImportedSession, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void
    ) {
        inner.importSession(imported, timeToLive: timeToLive, now: now, completion: completion)
    }

    func session(_ id: SessionID, countingAsUse counts: (borrowing Session) -> Bool) -> Session? {
        inner.session(id, countingAsUse: counts)
    }

    func read(_ id: SessionID, _ body: (borrowing Session) -> Bool) -> Bool { inner.read(id, body) }

    func lease(of id: SessionID) -> SessionLease? { inner.lease(of: id) }

    func update<R>(_ id: SessionID, _ body: (inout Session) throws -> R) throws -> R { try inner.update(id, body) }

    func change(
        _ id: SessionID, _ body: @escaping @Sendable (inout Session) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        inner.change(id, body, completion: completion)
    }

    var changesInPlace: Bool { inner.changesInPlace }

    func delete(_ id: SessionID, ifAt revisions: [Int]?) throws(PresentationError) -> Bool {
        try inner.delete(id, ifAt: revisions)
    }

    func delete(
        _ id: SessionID, ifAt revisions: [Int]?, heldBy token: SessionTokenDigest?,
        completion: @escaping @Sendable (Result<Bool, PresentationError>) -> Void
    ) {
        inner.delete(id, ifAt: revisions, heldBy: token, completion: completion)
    }

    func sessions(after cursor: String?, limit: Int) -> [Session] { inner.sessions(after: cursor, limit: limit) }

    var count: Int { inner.count }
    var limits: Limits { inner.limits }
    var journalStatistics: JournalStatistics? { inner.journalStatistics }
    var memoryBudget: MemoryBudget? { inner.memoryBudget }
    var writeBudget: WriteBudget? { inner.writeBudget }
}
