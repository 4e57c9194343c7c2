import MicroHTTP
import Synchronization

/// Answers to session creations by idempotency key: creation has no session to keep
/// them in, so they live here, bounded in count and in bytes, oldest forgotten first.
final class ReplyCache: Sendable {
    /// The first answer to a creation, and what identifies the request that got it.
    struct CreationReply: Sendable {
        let fingerprint: [UInt8]
        let response: HTTPResponse

        /// What the reply holds, for the byte budget: its body and fingerprint.
        var byteCount: Int {
            response.body.count + fingerprint.count
        }
    }

    /// What `make` hands back: the reply to record, or the error that made none.
    typealias Made = Result<CreationReply, any Error>

    private enum Slot {
        case recorded(CreationReply)
        /// A creation under this key is being made (written, with durable storage); the same
        /// key's requests that came meanwhile wait for it.
        case making(waiting: [@Sendable (CreationReply?) -> Void])
    }

    private struct State {
        var slots: [String: Slot] = [:]
        /// The recorded keys, oldest first; `head` is the first still counted.
        var order: [String] = []
        var head = 0
        /// What the recorded replies hold (`CreationReply.byteCount`).
        var bytes = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let byteBudget: Int

    init(capacity: Int, byteBudget: Int = .max) {
        self.capacity = max(1, capacity)
        self.byteBudget = byteBudget
    }

    /// Hands `answer` the reply recorded for `key` (replayed), or runs `make` and records and
    /// hands on the reply it calls back with. A request with the same key that comes while
    /// one is being made waits for it without holding a thread: it gets that reply, replayed,
    /// or, when the first one failed (nothing is recorded then), makes its own.
    func reply(
        for key: String,
        make: @escaping @Sendable (@escaping @Sendable (Made) -> Void) -> Void,
        answer: @escaping @Sendable (Result<(CreationReply, replayed: Bool), any Error>) -> Void
    ) {
        let recorded = state.withLock { state -> CreationReply?? in
            switch state.slots[key] {
            case .recorded(let reply):
                return .some(reply)
            case .making(var waiting):
                waiting.append { [self] reply in
                    if let reply { answer(.success((reply, true))) } else { self.reply(for: key, make: make, answer: answer) }
                }
                state.slots[key] = .making(waiting: waiting)
                return .some(nil)
            case nil:
                state.slots[key] = .making(waiting: [])
                return nil
            }
        }
        switch recorded {
        case .some(.some(let reply)): return answer(.success((reply, true)))
        case .some(.none): return
        case .none: break
        }
        make { [self] made in
            let waiting = finish(key, made)
            answer(made.map { ($0, false) })
            let reply = try? made.get()
            for waiter in waiting { waiter(reply) }
        }
    }

    /// Records a made reply (forgetting the oldest past the capacity or the byte budget; the
    /// newest is kept even alone past the budget) or clears the key of a failed one; hands
    /// back the requests that waited for it.
    private func finish(_ key: String, _ made: Made) -> [@Sendable (CreationReply?) -> Void] {
        state.withLock { state in
            guard case .making(let waiting) = state.slots[key] else { return [] }
            guard case .success(let reply) = made else {
                state.slots.removeValue(forKey: key)
                return waiting
            }
            state.slots[key] = .recorded(reply)
            state.order.append(key)
            state.bytes += reply.byteCount
            while state.order.count - state.head > 1,
                state.order.count - state.head > capacity || state.bytes > byteBudget
            {
                let oldest = state.order[state.head]
                if case .recorded(let forgotten) = state.slots.removeValue(forKey: oldest) {
                    state.bytes -= forgotten.byteCount
                }
                state.head += 1
            }
            if state.head > capacity {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            return waiting
        }
    }
}
