import MicroHTTP
import Synchronization

/// Runs of bytes that answers are sending, by a key naming exactly what they hold, so that
/// every answer that would send the same bytes sends the one run rather than a copy each.
///
/// An answer is held until its client has read it, and some answers are a whole session or a
/// whole kept history, megabytes: clients that ask and never read made the server hold a copy
/// each (an export, a resumed stream's backlog, a read of the events, a replayed change). A key
/// here names bytes that never change (a session's document at a revision, a revision's
/// events), so any run kept under it can be sent again.
///
/// Held weakly: a run is kept only while some answer still sends it, so nothing is kept for an
/// idle session and a sent run is freed at once, as it was before. Keys whose run is gone are
/// dropped once their count doubles, O(1) an insertion amortised.
final class SharedRuns<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        weak var run: SharedBytes?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var sweepAt = State.minimumSweep
        static var minimumSweep: Int { 256 }
    }

    private let state = Mutex(State())

    /// The run kept for each key, nil where none is being sent.
    func runs(for keys: [Key]) -> [SharedBytes?] {
        state.withLock { state in keys.map { state.entries[$0]?.run } }
    }

    /// Keeps each run under its key, unless another answer kept one meanwhile: then that one
    /// is returned in its place, so that both answers send the same bytes.
    func keep(_ written: [(key: Key, run: SharedBytes)]) -> [SharedBytes] {
        guard !written.isEmpty else { return [] }
        return state.withLock { state in
            let kept = written.map { key, run in
                if let other = state.entries[key]?.run { return other }
                state.entries[key] = Entry(run: run)
                return run
            }
            if state.entries.count >= state.sweepAt {
                state.entries = state.entries.filter { $0.value.run != nil }
                state.sweepAt = max(State.minimumSweep, state.entries.count * 2)
            }
            return kept
        }
    }

    /// The run kept for `key`, else `write`'s, kept from now on. Written outside the lock:
    /// a run may be megabytes, and other keys need not wait for it; two answers asking at
    /// once may both write it, and send whichever was kept first.
    func run(for key: Key, write: () -> SharedBytes) -> SharedBytes {
        if let kept = runs(for: [key])[0] { return kept }
        return keep([(key, write())])[0]
    }

    /// The keys with an entry, live or not: for tests of the sweep.
    var entryCount: Int { state.withLock { $0.entries.count } }
}
