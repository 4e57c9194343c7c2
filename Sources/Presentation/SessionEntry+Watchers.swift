import Synchronization

/// Watchers: registered, removed, and told in the order they registered.
extension SessionEntry {
    func addWatcher(_ onChange: @escaping @Sendable (SessionChange) -> Void) -> Watch? {
        state.withLock { state in
            state.closed ? nil : register(onChange, in: &state)
        }
    }

    /// `addWatcher` only while the session is at `revision`, else the session as it is: a
    /// watcher whose look is behind catches up and tries again, so that no change lands unseen
    /// between its look and its registration.
    func addWatcher(ifAt revision: Int, _ onChange: @escaping @Sendable (SessionChange) -> Void) -> WatchStart {
        state.withLock { state in
            guard !state.closed else { return .gone }
            guard state.session.revision == revision else { return .moved(state.session) }
            return .watching(register(onChange, in: &state))
        }
    }

    private func register(_ onChange: @escaping @Sendable (SessionChange) -> Void, in state: inout State) -> Watch {
        let key = state.nextWatcher
        state.nextWatcher += 1
        // Weak: a watch kept after its session is deleted must not keep the entry alive.
        let watch = Watch(onChange: onChange) { [weak self] in self?.removeWatcher(key) }
        state.watchers[key] = watch
        return watch
    }

    private func removeWatcher(_ key: Int) {
        state.withLock { _ = $0.watchers.removeValue(forKey: key) }
    }

    static func ordered(_ watchers: [Int: Watch]) -> [Watch] {
        // Most sessions have no watcher: skip the sort's allocations for them.
        if watchers.isEmpty { return [] }
        return watchers.sorted { $0.key < $1.key }.map(\.value)
    }
}
