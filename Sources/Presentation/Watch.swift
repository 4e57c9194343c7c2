import Synchronization

/// A registration for a session's changes; `cancel()` ends it.
///
/// The session holds its watches until they are cancelled or the session is deleted, so dropping
/// a `Watch` without cancelling it does not stop the calls.
public final class Watch: Sendable {
    private let onChange: @Sendable (SessionChange) -> Void
    /// Removes this watch from its session; nil once cancelled.
    private let unregister: Mutex<(@Sendable () -> Void)?>

    init(onChange: @escaping @Sendable (SessionChange) -> Void, unregister: @escaping @Sendable () -> Void) {
        self.onChange = onChange
        self.unregister = Mutex(unregister)
    }

    /// Stops further calls. Idempotent. A call already under way on another thread may still finish.
    public func cancel() {
        let unregister = self.unregister.withLock { unregister in
            defer { unregister = nil }
            return unregister
        }
        // Outside our lock: unregistering takes the session's lock.
        unregister?()
    }

    /// Calls the watcher unless cancelled. The caller holds no lock, so the watcher may call back
    /// into the store, within what `SessionStore.watch` allows (a durable store's caller holds
    /// the session's turn: the watcher must not wait for a write).
    func tell(_ change: SessionChange) {
        guard unregister.withLock({ $0 != nil }) else { return }
        onChange(change)
    }
}
