import Foundation
import Presentation
import Synchronization

/// Makes committed transactions durable: one thread fsyncs SQLite's write-ahead log for every
/// batch handed to it since its last fsync, then reports those batches.
///
/// Why a thread of its own: SQLite commits with `synchronous = NORMAL`, which writes the
/// transaction's pages to the log and returns without an fsync. With `FULL`, the writer thread
/// waited for each fsync (about 3 ms here) before it could take the next batch, so with 64
/// clients every request waited for the fsync *and then* for the writer's work on its batch,
/// and the core sat idle during the fsync once the connections were all parked. Now the writer
/// commits the next batch while this thread waits on the disk, and one fsync covers every batch
/// committed before it began: on Linux `fdatasync` flushes the file, whichever descriptor asks.
///
/// An fsync that fails leaves the disk's state unknown (the kernel may have dropped the pages it
/// could not write), so the batches waiting on it fail and so does every write after it, until
/// a restart reads back what the disk really holds: what PostgreSQL does after its fsync failures.
final class SyncQueue: Sendable {
    /// Reports a batch's outcome: nil once durable, or why it is not.
    typealias Report = @Sendable (PresentationError?) -> Void

    private struct State {
        var pending: [Report] = []
        var stopping = false
        /// Set by a failed fsync; every later batch fails with it.
        var failure: PresentationError?
    }

    private let state = Mutex(State())
    private let work = NSCondition()
    private let done = NSCondition()
    private let stopped = Atomic<Bool>(false)
    private let syncCount = Atomic<Int>(0)
    /// Makes the log durable; 0 on success, otherwise an `errno`. `fdatasync` but in tests.
    private let sync: @Sendable () -> Int32

    init(sync: @escaping @Sendable () -> Int32) {
        self.sync = sync
        let thread = Thread { [self] in run() }
        thread.name = "session-sync"
        thread.start()
    }

    /// Fsyncs done (or tried).
    var syncs: Int { syncCount.load(ordering: .relaxed) }

    /// The failure that stopped durable writes, if one did.
    var failure: PresentationError? { state.withLock { $0.failure } }

    /// Reports on the batch just committed once an fsync begun after now has succeeded.
    func hand(_ report: @escaping Report) {
        let failure = state.withLock { state -> PresentationError? in
            if state.failure == nil { state.pending.append(report) }
            return state.failure
        }
        if let failure { return report(failure) }
        work.lock()
        work.signal()
        work.unlock()
    }

    private func run() {
        while true {
            work.lock()
            var batch: [Report] = []
            var stopping = false
            while true {
                (batch, stopping) = state.withLock { state in
                    defer { state.pending = [] }
                    return (state.pending, state.stopping)
                }
                if !batch.isEmpty || stopping { break }
                work.wait()
            }
            work.unlock()
            if batch.isEmpty && stopping { break }
            syncCount.add(1, ordering: .relaxed)
            let status = sync()
            var outcome: PresentationError?
            if status != 0 {
                let failure = PresentationError.storageFailed(
                    "the disk could not sync the session log (\(String(cString: strerror(status)))); "
                        + "writes are refused until a restart")
                state.withLock { $0.failure = $0.failure ?? failure }
                outcome = failure
            }
            for report in batch { report(outcome) }
        }
        stopped.store(true, ordering: .releasing)
        done.lock()
        done.broadcast()
        done.unlock()
    }

    /// Syncs and reports what was handed, then ends the thread; waits for it. For after the
    /// writer has stopped, so that nothing is handed later.
    func stop() {
        state.withLock { $0.stopping = true }
        work.lock()
        work.signal()
        work.unlock()
        done.lock()
        while !stopped.load(ordering: .acquiring) {
            done.wait()
        }
        done.unlock()
    }
}
