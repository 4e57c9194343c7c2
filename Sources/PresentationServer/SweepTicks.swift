import Synchronization

/// The sweep's ticks, counted: the whole sweep (expired sessions removed, every moved deadline
/// written) comes every `every` of them, and the ticks between write only the deadlines a kill
/// must not lose (`StoreSetup.startSweep`).
final class SweepTicks: Sendable {
    let every: Int
    private let count = Atomic<Int>(0)

    init(every: Int) {
        self.every = max(1, every)
    }

    /// Counts a tick; true when it is a whole sweep's.
    func next() -> Bool {
        count.add(1, ordering: .relaxed).newValue % every == 0
    }
}
