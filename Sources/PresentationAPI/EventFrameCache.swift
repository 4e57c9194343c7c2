import Presentation
import Synchronization

/// Server-Sent Events messages for a span of one session's revisions, written once for all
/// of its subscribers.
///
/// A mutation wakes every subscriber of its session, and each would otherwise write the same
/// events to JSON again: with a thousand subscribers that writing was most of the fan-out's
/// cost. Events of a revision never change, so an entry never goes stale; the cache is bounded,
/// oldest first, and a deleted session's entries go with it.
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
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

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
        let capacity = capacity
        state.withLock { state in
            guard state.frames.updateValue(bytes, forKey: key) == nil else { return }
            state.order.append(key)
            while state.frames.count > capacity, state.head < state.order.count {
                state.frames.removeValue(forKey: state.order[state.head])
                state.head += 1
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
        }
    }
}
