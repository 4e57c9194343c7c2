import Presentation
import Synchronization

/// Server-Sent Events messages for a span of one session's revisions, written once for all
/// of its subscribers.
///
/// A mutation wakes every subscriber of its session, and each would otherwise write the same
/// events to JSON again: with a thousand subscribers that writing was most of the fan-out's
/// cost. Events of a revision never change, so an entry never goes stale; the cache is bounded,
/// oldest first, by count and by bytes, and a deleted session's entries go with it.
///
/// Bounded by count alone, it held 256 messages whatever their size: a stream including a
/// 3.6 MB session, followed through tiny changes, left 256 copies of that session here, 440 MB
/// of one session's (SECURITY.md bounds a session at about 17 MiB), held after the stream closed.
final class EventFrameCache: Sendable {
    private struct Key: Hashable {
        enum Kind: Hashable {
            /// The events after `after`, through `through`.
            case events
            /// The session's message at `through` (`after` unused).
            case session
        }

        let session: SessionID
        let after: Int
        let through: Int
        var kind = Kind.events
    }

    private struct State {
        var frames: [Key: [UInt8]] = [:]
        var order: [Key] = []
        var head = 0
        /// The bytes of `frames`' messages.
        var bytes = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let byteBudget: Int

    /// A few of the largest sessions' messages (`--max-session-bytes`, 4 MiB by default).
    static let defaultByteBudget = 16 << 20

    /// `byteBudget` may be passed by the newest message alone: that one is kept whatever its
    /// size, since it is the one a session's other subscribers are about to ask for.
    init(capacity: Int = 256, byteBudget: Int = defaultByteBudget) {
        self.capacity = max(1, capacity)
        self.byteBudget = byteBudget
    }

    /// The bytes of the messages kept, for tests.
    var heldBytes: Int { state.withLock { $0.bytes } }

    /// The messages for the events of `session` after revision `after`, written by `make` only
    /// when no other subscriber has written them yet.
    func messages(for session: SessionID, after: Int, through: Int, make: () throws -> [UInt8]) rethrows -> [UInt8] {
        try kept(Key(session: session, after: after, through: through), make: make)
    }

    /// The message holding the session as it stands at `revision`, for streams that include it.
    func sessionMessage(for session: SessionID, at revision: Int, make: () -> [UInt8]) -> [UInt8] {
        kept(Key(session: session, after: revision, through: revision, kind: .session), make: make)
    }

    private func kept(_ key: Key, make: () throws -> [UInt8]) rethrows -> [UInt8] {
        if let kept = state.withLock({ $0.frames[key] }) { return kept }
        // Written outside the lock: two subscribers may both write it, and either copy is right.
        let bytes = try make()
        let capacity = capacity, byteBudget = byteBudget
        state.withLock { state in
            if let replaced = state.frames.updateValue(bytes, forKey: key) {
                state.bytes += bytes.count - replaced.count
                return
            }
            state.bytes += bytes.count
            state.order.append(key)
            // Never the newest, the last in `order`.
            while state.frames.count > capacity || state.bytes > byteBudget, state.head < state.order.count - 1 {
                let oldest = state.order[state.head]
                state.head += 1
                if let dropped = state.frames.removeValue(forKey: oldest) { state.bytes -= dropped.count }
            }
            if state.head > capacity || state.order.count - state.head > 2 * capacity {
                state.order = state.order[state.head...].filter { state.frames[$0] != nil }
                state.head = 0
            }
        }
        return bytes
    }

    /// Forgets a deleted session's messages.
    func remove(_ session: SessionID) {
        state.withLock { state in
            state.frames = state.frames.filter { $0.key.session != session }
            state.bytes = state.frames.values.reduce(0) { $0 + $1.count }
        }
    }
}
