import MicroHTTP
import Synchronization

/// Answers to session creations by idempotency key: creation has no session to keep
/// them in, so they live here, bounded, oldest forgotten first.
final class ReplyCache: Sendable {
    /// The first answer to a creation, and what identifies the request that got it.
    struct CreationReply: Sendable {
        let fingerprint: [UInt8]
        let response: HTTPResponse
    }

    private struct State {
        var replies: [String: CreationReply] = [:]
        var order: [String] = []
        var head = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The recorded reply for `key`, or the result of `make` recorded under it. Creations
    /// with the same key are serialized so a retry racing the first request still gets its answer.
    func reply(for key: String, make: () throws -> CreationReply) throws -> (CreationReply, replayed: Bool) {
        try state.withLock { state in
            if let reply = state.replies[key] { return (reply, true) }
            let reply = try make()
            state.replies[key] = reply
            state.order.append(key)
            if state.order.count - state.head > capacity {
                state.replies.removeValue(forKey: state.order[state.head])
                state.head += 1
                if state.head > capacity {
                    state.order.removeFirst(state.head)
                    state.head = 0
                }
            }
            return (reply, false)
        }
    }
}
