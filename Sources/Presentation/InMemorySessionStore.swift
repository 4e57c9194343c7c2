#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
import Synchronization

/// Sessions in memory, for one process: sharded so that different sessions never share a lock on the hot path.
///
/// A shard's lock is held only to find, add or remove an entry; work on a session happens under
/// that session's own lock (`SessionEntry`). Given a journal, the store is durable: every change
/// is written through it before it is committed here, and reads never touch the disk.
public final class InMemorySessionStore: SessionStore {
    public let limits: Limits
    let journal: (any SessionJournal)?
    /// Past it, new sessions are refused; nil: no bound but `limits.maxSessions`.
    public let memoryBudget: MemoryBudget?
    /// With a journal: what each session may have written a second; nil: no bound.
    public let writeBudget: WriteBudget?
    /// With a journal: sessions read since the sweep's last tick whose deadline on disk is near; nil: the sweep
    /// alone writes what reads moved (`writeNearDeadlines`, in InMemorySessionStore+Expiry.swift).
    public let nearDeadlines: NearDeadlineRenewals?
    /// The time that leases are measured against; injected so that expiry can be tested exactly.
    let clock: @Sendable () -> Date
    /// A new session's id and token.
    private let makeIdentity: @Sendable () -> (SessionID, SessionToken)
    let shards: [SessionShard]
    let sessionCount = Atomic<Int>(0)
    /// The second (since the reference date) of the last `removeExpiredForRoom`, which looks at
    /// most once in one; held while it looks, so that creations meeting a full store at once
    /// wait for the look under way rather than be refused while it frees their room.
    let roomLookSecond = Mutex<Int>(Int.min)
    /// Expired sessions gone from memory whose removal the journal refused (a full disk): the
    /// next sweep removes them, with their bytes (`removeExpired`).
    let unremoved = Mutex<[StoredSession]>([])

    private static let shardCount = 64
    /// Random ids never collide in practice; an injected generator that keeps colliding is a bug.
    private static let idAttempts = 16

    public init(
        limits: Limits = .default,
        journal: (any SessionJournal)? = nil,
        memoryBudget: MemoryBudget? = nil,
        writeBudget: WriteBudget? = nil,
        nearDeadlines: NearDeadlineRenewals? = nil,
        clock: @escaping @Sendable () -> Date = Date.init,
        makeID: (@Sendable () -> SessionID)? = nil,
        makeToken: (@Sendable () -> SessionToken)? = nil
    ) {
        self.limits = limits
        self.journal = journal
        self.memoryBudget = memoryBudget
        self.writeBudget = writeBudget
        self.nearDeadlines = journal == nil ? nil : nearDeadlines
        self.clock = clock
        if makeID == nil, makeToken == nil {
            makeIdentity = Self.randomIdentity
        } else {
            let makeID = makeID ?? SessionID.random, makeToken = makeToken ?? SessionToken.random
            makeIdentity = { (makeID(), makeToken()) }
        }
        self.shards = (0..<Self.shardCount).map { _ in SessionShard() }
    }

    public var count: Int { sessionCount.load(ordering: .relaxed) }

    /// Bytes the journal holds; 0 without one.
    public var storedBytes: Int { journal?.storedBytes ?? 0 }

    public var changesInPlace: Bool { journal == nil }

    public var journalStatistics: JournalStatistics? { journal?.statistics }

    public func create(root: ScreenSpec, timeToLive: Int?, now: Date) throws(PresentationError) -> NewSession {
        try limits.checkNewSession(root: root)
        let (new, entry, lease) = try insertHidden(timeToLive: timeToLive, now: now) { id, token in
            Session(id: id, token: token, root: root, now: now)
        }
        return try written(new, entry, lease)
    }

    public func create(
        root: ScreenSpec, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void
    ) {
        let inserted = Result { () throws(PresentationError) in
            try limits.checkNewSession(root: root)
            return try insertHidden(timeToLive: timeToLive, now: now) { id, token in
                Session(id: id, token: token, root: root, now: now)
            }
        }
        write(inserted, completion)
    }

    public func importSession(_ imported: ImportedSession, timeToLive: Int?, now: Date) throws(PresentationError)
        -> NewSession
    {
        let (new, entry, lease) = try insertImported(imported, timeToLive: timeToLive, now: now)
        return try written(new, entry, lease)
    }

    public func importSession(
        _ imported: ImportedSession, timeToLive: Int?, now: Date,
        completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void
    ) {
        write(Result { () throws(PresentationError) in try insertImported(imported, timeToLive: timeToLive, now: now) }, completion)
    }

    private func insertImported(_ imported: ImportedSession, timeToLive: Int?, now: Date) throws(PresentationError)
        -> (NewSession, SessionEntry, SessionLease)
    {
        precondition(imported.limits == limits, "an imported session is checked against the limits of the store it goes to")
        return try insertHidden(timeToLive: timeToLive, now: now) { id, token in imported.session(id: id, token: token) }
    }

    /// Adds a session read back from storage at start-up, as it was, taking `storedBytes`
    /// there: no limit is checked and nothing written.
    public func restore(_ session: Session, lease: SessionLease, storedBytes: Int) {
        let entry = SessionEntry(session: session, lease: lease, storedBytes: storedBytes)
        shard(for: session.id).entries.withLock { entries in
            if entries.updateValue(entry, forKey: session.id) == nil {
                sessionCount.add(1, ordering: .relaxed)
            }
        }
    }

    /// A new session inserted by `insertHidden`, written through the journal and only then
    /// shown; forgotten again when it cannot be written.
    private func written(_ new: NewSession, _ entry: SessionEntry, _ lease: SessionLease) throws(PresentationError)
        -> NewSession
    {
        guard let journal else { return new }
        let bytes: Int
        do {
            bytes = try journal.save(new.session, over: nil, lease: lease)
        } catch {
            forget(new.session.id)
            throw error
        }
        let landed = clock()
        entry.open(storedBytes: bytes, at: landed)
        nearDeadlines?.note(new.session.id, entry, at: landed)
        return new
    }

    /// The same as `written`, with the journal's write queued rather than waited for.
    private func write(
        _ inserted: Result<(NewSession, SessionEntry, SessionLease), PresentationError>,
        _ completion: @escaping @Sendable (Result<NewSession, PresentationError>) -> Void
    ) {
        guard case .success(let (new, entry, lease)) = inserted else { return completion(inserted.map(\.0)) }
        guard let journal else { return completion(.success(new)) }
        journal.save(new.session, over: nil, lease: lease) { [self] written in
            switch written {
            case .failure(let failure):
                forget(new.session.id)
                completion(.failure(failure))
            case .success(let bytes):
                // Its lease runs from now, the journal's from the creation: noted, as a read is.
                let landed = clock()
                entry.open(storedBytes: bytes, at: landed)
                nearDeadlines?.note(new.session.id, entry, at: landed)
                completion(.success(new))
            }
        }
    }

    /// Undoes `insertHidden` for a session that could not be written.
    private func forget(_ id: SessionID) {
        shard(for: id).entries.withLock { _ = $0.removeValue(forKey: id) }
        sessionCount.subtract(1, ordering: .relaxed)
    }

    /// Makes a session under a fresh id and inserts it, hidden until written when there is a
    /// journal (shown at once without one): the entry and lease, for `written` or `write`.
    private func insertHidden(
        timeToLive: Int?, now: Date, _ make: (SessionID, SessionToken) throws(PresentationError) -> Session
    ) throws(PresentationError) -> (NewSession, SessionEntry, SessionLease) {
        if let journal, journal.storedBytes >= limits.maxStoredBytes {
            throw .storageLimitReached(limit: limits.maxStoredBytes)
        }
        if let memoryBudget, memoryBudget.isExceeded(now: now) {
            throw .memoryLimitReached(limit: memoryBudget.limit)
        }
        try reserveSlot(now: now)
        let lease = SessionLease(timeToLive: limits.timeToLive(requested: timeToLive), lastAccess: now)
        for _ in 0..<Self.idAttempts {
            let (id, token) = makeIdentity()
            let session: Session
            do {
                session = try make(id, token)
            } catch {
                sessionCount.subtract(1, ordering: .relaxed)
                throw error
            }
            // Hidden (not open) until written: nobody knows the id yet, but a sweep must not see it.
            let entry = SessionEntry(session: session, lease: lease, open: journal == nil)
            let inserted = shard(for: session.id).entries.withLock { entries in
                guard entries[session.id] == nil else { return false }
                entries[session.id] = entry
                return true
            }
            guard inserted else { continue }
            return (NewSession(session: session, token: token), entry, lease)
        }
        sessionCount.subtract(1, ordering: .relaxed)
        preconditionFailure("the session id generator returned ids in use \(Self.idAttempts) times in a row")
    }

    /// A new session's id and token from one draw of the system's secure generator, both used
    /// at once: drawn apart, they cost a creation a system call more (docs/performance.md, item 94).
    static func randomIdentity() -> (SessionID, SessionToken) {
        withUnsafeTemporaryAllocation(byteCount: SessionID.randomByteCount + SessionToken.randomByteCount, alignment: 8) {
            bytes in
            SecureRandom.fill(bytes)
            let raw = UnsafeRawBufferPointer(bytes)
            return (
                SessionID(randomBytes: UnsafeRawBufferPointer(rebasing: raw[..<SessionID.randomByteCount])),
                SessionToken(spelling: UnsafeRawBufferPointer(rebasing: raw[SessionID.randomByteCount...]))
            )
        }
    }

    /// Takes one of the `maxSessions` slots, or refuses. Sessions that expired but wait for the
    /// sweep hold slots that nobody can use: they are freed first (`removeExpiredForRoom`).
    private func reserveSlot(now: Date) throws(PresentationError) {
        if takeSlot() { return }
        // Tried again whether this creation looked or another did this second: that look, which
        // this one waited for, may have freed room.
        _ = removeExpiredForRoom(now: now)
        guard takeSlot() else { throw .tooManySessions(limit: limits.maxSessions) }
    }

    /// A compare-and-swap, so that concurrent creations never overshoot.
    private func takeSlot() -> Bool {
        var current = sessionCount.load(ordering: .relaxed)
        while current < limits.maxSessions {
            let (exchanged, original) = sessionCount.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    public func session(_ id: SessionID, countingAsUse counts: (borrowing Session) -> Bool) -> Session? {
        let now = clock()
        guard let entry = entry(id), let session = entry.session(at: now, countingAsUse: counts) else { return nil }
        nearDeadlines?.note(id, entry, at: now)
        return session
    }

    public func read(_ id: SessionID, _ body: (borrowing Session) -> Bool) -> Bool {
        let now = clock()
        guard let entry = entry(id), entry.read(at: now, body) else { return false }
        nearDeadlines?.note(id, entry, at: now)
        return true
    }

    /// The session's lease (its idle deadline), without counting as a use; nil when there is none.
    public func lease(of id: SessionID) -> SessionLease? {
        guard let entry = entry(id), entry.current != nil else { return nil }
        return entry.lease
    }

    public func update<R>(_ id: SessionID, _ body: (inout Session) throws -> R) throws -> R {
        guard let entry = entry(id) else { throw PresentationError.sessionNotFound }
        return try entry.update(at: clock(), journal: journal, budget: writeBudget, body)
    }

    public func change(
        _ id: SessionID, _ body: @escaping @Sendable (inout Session) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard let entry = entry(id) else { return completion(PresentationError.sessionNotFound) }
        guard let journal else {
            do {
                try entry.updateInPlace(at: clock(), body)
            } catch {
                return completion(error)
            }
            return completion(nil)
        }
        entry.update(at: clock(), landing: clock, journal: journal, budget: writeBudget, body) { [self] result in
            if case .failure(let error) = result { return completion(error) }
            // Its lease runs from the landing, the journal's from the change's start: noted, as
            // a read is (a write slower than the ttl otherwise left a deadline on disk already
            // past until the sweep). The turn is passed after this: a tick keeps it noted meanwhile.
            nearDeadlines?.note(id, entry, at: clock())
            completion(nil)
        }
    }

    public func delete(_ id: SessionID, ifAt revisions: [Int]?) throws(PresentationError) -> Bool {
        guard let entry = entry(id) else { return false }
        // Closing waits for an update under way on this session, so `.deleted` is the last word,
        // and the row goes before the entry: a delete that cannot be written is not made.
        guard let watchers = try entry.close(journal: journal, ifAt: revisions) else {
            return false
        }
        forgetClosed(id, entry, telling: watchers)
        return true
    }

    public func delete(
        _ id: SessionID, ifAt revisions: [Int]?, heldBy token: SessionTokenDigest?,
        completion: @escaping @Sendable (Result<Bool, PresentationError>) -> Void
    ) {
        guard let entry = entry(id) else { return completion(.success(false)) }
        // Either way the entry hands back its watchers once closed, nil when it was already.
        let closed: @Sendable (Result<[Watch]?, PresentationError>) -> Void = { [self] closed in
            completion(
                closed.map { watchers in
                    guard let watchers else { return false }
                    forgetClosed(id, entry, telling: watchers)
                    return true
                })
        }
        if let journal {
            entry.close(journal: journal, ifAt: revisions, heldBy: token, completion: closed)
        } else {
            entry.close(ifAt: revisions, heldBy: token, then: closed)
        }
    }

    /// Drops a closed entry from its shard and tells its watchers it is gone.
    private func forgetClosed(_ id: SessionID, _ entry: SessionEntry, telling watchers: [Watch]) {
        shard(for: id).entries.withLock { entries in
            if entries[id] === entry { entries.removeValue(forKey: id) }
        }
        sessionCount.subtract(1, ordering: .relaxed)
        for watch in watchers {
            watch.tell(.deleted)
        }
    }

    public func sessions(after cursor: String?, limit: Int) -> [Session] {
        guard limit > 0 else { return [] }
        var ids = shards.flatMap { shard in shard.entries.withLock { Array($0.keys) } }
        if let cursor { ids.removeAll { !$0.sorts(after: cursor) } }
        // A listing is no use of the session: it must not keep it from expiring.
        let now = clock()
        var page: [Session] = []
        // The first `limit` ids, then, should some have expired or gone meanwhile (the sweep
        // removes expired ones, so seldom), the next ones: never a sort of every id.
        while true {
            let first = ids.smallest(limit - page.count)
            for id in first {
                if let entry = entry(id), !entry.lease.isExpired(at: now), let session = entry.current { page.append(session) }
            }
            guard page.count < limit, first.count < ids.count, let last = first.last else { return page }
            ids.removeAll { $0 <= last }
        }
    }

    public func watch(_ id: SessionID, _ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        entry(id)?.addWatcher(onChange)
    }

    public func watch(_ id: SessionID, ifAt revision: Int, _ onChange: @escaping @Sendable (SessionChange) -> Void)
        -> WatchStart
    {
        entry(id)?.addWatcher(ifAt: revision, onChange) ?? .gone
    }

    func entry(_ id: SessionID) -> SessionEntry? {
        shard(for: id).entries.withLock { $0[id] }
    }

    func shard(for id: SessionID) -> SessionShard {
        shards[id.shardKey % Self.shardCount]
    }
}
