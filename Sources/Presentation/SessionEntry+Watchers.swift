import Synchronization

/// Watchers: registered, removed, and told in the order they registered.
extension SessionEntry {
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

    static func ordered(_ watchers: [Int: Watch]) -> [Watch] {
        // Most sessions have no watcher: skip the sort's allocations for them.
        if watchers.isEmpty { return [] }
        return watchers.sorted { $0.key < $1.key }.map(\.value)
    }
}
