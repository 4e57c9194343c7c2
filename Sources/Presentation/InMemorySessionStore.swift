public import Foundation
import Synchronization

/// Sessions in memory, for one process: sharded so that different sessions never share a lock on the hot path.
///
/// A shard's lock is held only to find, add or remove an entry; work on a session happens under
/// that session's own lock (`SessionEntry`).
public final class InMemorySessionStore: SessionStore {
    public let limits: Limits
    private let makeID: @Sendable () -> SessionID
    private let makeToken: @Sendable () -> SessionToken
    private let shards: [SessionShard]
    private let sessionCount = Atomic<Int>(0)

    private static let shardCount = 64
    /// Random ids never collide in practice; an injected generator that keeps colliding is a bug.
    private static let idAttempts = 16

    public init(
        limits: Limits = .default,
        makeID: @escaping @Sendable () -> SessionID = SessionID.random,
        makeToken: @escaping @Sendable () -> SessionToken = SessionToken.random
    ) {
        self.limits = limits
        self.makeID = makeID
        self.makeToken = makeToken
        self.shards = (0..<Self.shardCount).map { _ in SessionShard() }
    }

    public var count: Int { sessionCount.load(ordering: .relaxed) }

    public func create(root: ScreenSpec, now: Date) throws(PresentationError) -> NewSession {
        try reserveSlot()
        for _ in 0..<Self.idAttempts {
            let token = makeToken()
            let session = Session(id: makeID(), token: token, root: root, now: now)
            let entry = SessionEntry(session: session)
            let inserted = shard(for: session.id).entries.withLock { entries in
                guard entries[session.id] == nil else { return false }
                entries[session.id] = entry
                return true
            }
            if inserted { return NewSession(session: session, token: token) }
        }
        sessionCount.subtract(1, ordering: .relaxed)
        preconditionFailure("the session id generator returned ids in use \(Self.idAttempts) times in a row")
    }

    /// Takes one of the `maxSessions` slots, or refuses; a compare-and-swap so concurrent creations never overshoot.
    private func reserveSlot() throws(PresentationError) {
        var current = sessionCount.load(ordering: .relaxed)
        while true {
            guard current < limits.maxSessions else { throw .tooManySessions(limit: limits.maxSessions) }
            let (exchanged, original) = sessionCount.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    public func session(_ id: SessionID) -> Session? {
        entry(id)?.session
    }

    public func update<R>(_ id: SessionID, _ body: (inout Session) throws -> R) throws -> R {
        guard let entry = entry(id) else { throw PresentationError.sessionNotFound }
        return try entry.update(body)
    }

    public func delete(_ id: SessionID) -> Bool {
        guard let entry = shard(for: id).entries.withLock({ $0.removeValue(forKey: id) }) else { return false }
        sessionCount.subtract(1, ordering: .relaxed)
        // Closing waits for an update under way on this session, so `.deleted` is the last word.
        for watch in entry.close() {
            watch.tell(.deleted)
        }
        return true
    }

    public func sessions(after: SessionID?, limit: Int) -> [Session] {
        var ids = shards.flatMap { shard in shard.entries.withLock { Array($0.keys) } }
        if let after { ids.removeAll { $0.rawValue <= after.rawValue } }
        ids.sort { $0.rawValue < $1.rawValue }
        return ids.lazy.compactMap { self.session($0) }.prefix(max(0, limit)).map { $0 }
    }

    public func watch(_ id: SessionID, _ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        entry(id)?.addWatcher(onChange)
    }

    private func entry(_ id: SessionID) -> SessionEntry? {
        shard(for: id).entries.withLock { $0[id] }
    }

    private func shard(for id: SessionID) -> SessionShard {
        shards[Int(UInt(bitPattern: id.hashValue) % UInt(Self.shardCount))]
    }
}
