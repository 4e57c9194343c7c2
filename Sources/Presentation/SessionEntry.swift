import Synchronization

/// One stored session and its watchers, behind a lock of its own so that sessions never wait on each other.
final class SessionEntry: Sendable {
    private struct State {
        var session: Session
        /// By registration number, so watchers are told in the order they registered.
        var watchers: [Int: Watch] = [:]
        var nextWatcher = 0
        /// Set by `close()`: a caller that found the entry just before deletion must not use it.
        var closed = false
    }

    private let state: Mutex<State>

    init(session: Session) {
        state = Mutex(State(session: session))
    }

    var session: Session? {
        state.withLock { $0.closed ? nil : $0.session }
    }

    /// Runs `body` on a copy of the session and commits the copy only if `body` returns.
    func update<R>(_ body: (inout Session) throws -> R) throws -> R {
        var result: R?
        let notice = try state.withLock { state throws -> (watchers: [Watch], revision: Int)? in
            guard !state.closed else { throw PresentationError.sessionNotFound }
            var draft = state.session
            result = try body(&draft)
            let revised = draft.revision != state.session.revision
            state.session = draft
            return revised ? (Self.ordered(state.watchers), draft.revision) : nil
        }
        if let notice {
            for watch in notice.watchers {
                watch.tell(.revised(notice.revision))
            }
        }
        guard let result else { preconditionFailure("update returned without a result") }
        return result
    }

    func addWatcher(_ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let key = state.nextWatcher
            state.nextWatcher += 1
            // Weak: a watch kept after its session is deleted must not keep the entry alive.
            let watch = Watch(onChange: onChange) { [weak self] in self?.removeWatcher(key) }
            state.watchers[key] = watch
            return watch
        }
    }

    private func removeWatcher(_ key: Int) {
        state.withLock { _ = $0.watchers.removeValue(forKey: key) }
    }

    /// Marks the entry deleted and hands back its watchers, for the caller to tell outside the lock.
    func close() -> [Watch] {
        state.withLock { state in
            state.closed = true
            defer { state.watchers = [:] }
            return Self.ordered(state.watchers)
        }
    }

    private static func ordered(_ watchers: [Int: Watch]) -> [Watch] {
        watchers.sorted { $0.key < $1.key }.map(\.value)
    }
}
