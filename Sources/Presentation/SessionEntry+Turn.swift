import Dispatch
import Synchronization

/// The turn: one change of a session at a time while its write is in flight, the others waiting in order.
extension SessionEntry {
    /// A change waiting for the turn; run, it says whether it still holds the turn (its write
    /// is queued, or a blocked caller now has it) or has passed it on (nothing to write).
    typealias Turn = @Sendable () -> TurnEnd

    enum TurnEnd {
        case kept
        case passed
    }

    /// Runs `turn` now if no change holds the turn, else after those before it.
    func enqueue(_ turn: @escaping Turn) {
        let mine = state.withLock { state in
            if state.busy {
                state.waiting.append(turn)
                return false
            }
            state.busy = true
            return true
        }
        if mine { run(turn) }
    }

    /// Waits until no change of this session holds the turn, and takes it.
    func takeTurn() {
        let wake = state.withLock { state -> DispatchSemaphore? in
            guard state.busy else {
                state.busy = true
                return nil
            }
            let wake = DispatchSemaphore(value: 0)
            state.waiting.append {
                wake.signal()
                return .kept
            }
            return wake
        }
        // Woken by `passTurn`, which hands the turn over without freeing it.
        wake?.wait()
    }

    /// Hands the turn to the first change waiting for it, or frees it.
    func passTurn() {
        if let next = nextTurn() { run(next) }
    }

    /// Runs `turn`, then, while each passes the turn on, the next one waiting: a loop, so that
    /// thousands of changes that write nothing (refused ones) queued behind one write do not
    /// nest thousands of calls deep on the thread that lands it.
    private func run(_ turn: @escaping Turn) {
        var current: Turn? = turn
        while let turn = current {
            current = turn() == .passed ? nextTurn() : nil
        }
    }

    /// The first change waiting for the turn, taken off the queue; nil after freeing the turn.
    private func nextTurn() -> Turn? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
    }
}
