#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
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

    private let thread = BatchThread<Report>()
    /// Set by a failed fsync; every later batch fails with it.
    private let failed = Mutex<PresentationError?>(nil)
    /// Told once, on the sync thread, when a failed fsync stops durable writes.
    private let whenStopped = Mutex<(@Sendable (PresentationError) -> Void)?>(nil)
    private let syncCount = Atomic<Int>(0)
    /// Makes the log durable; 0 on success, otherwise an `errno`. `fdatasync` but in tests.
    private let sync: @Sendable () -> Int32

    init(sync: @escaping @Sendable () -> Int32) {
        self.sync = sync
        thread.start(name: "session-sync") { [self] reports in syncThenReport(reports) }
    }

    /// Fsyncs done (or tried).
    var syncs: Int { syncCount.load(ordering: .relaxed) }

    /// The failure that stopped durable writes, if one did.
    var failure: PresentationError? { failed.withLock { $0 } }

    /// `body` is told, once, when a failed fsync stops durable writes: the moment an operator
    /// needs to hear of, which otherwise showed only as 503s until the stop's last line.
    func whenWritesStop(_ body: @escaping @Sendable (PresentationError) -> Void) {
        whenStopped.withLock { $0 = body }
    }

    /// Reports on the batch just committed once an fsync begun after now has succeeded.
    func hand(_ report: @escaping Report) {
        if let failure { return report(failure) }
        // Not added once stopping: the writer hands nothing after it has stopped.
        if !thread.add(report) { report(.storageFailed("the server is stopping")) }
    }

    private func syncThenReport(_ batch: [Report]) {
        // After a failed fsync a later one may succeed with the failed pages lost, and the log
        // is read back only up to them: nothing committed since is durable either.
        if let failure { return batch.forEach { $0(failure) } }
        syncCount.add(1, ordering: .relaxed)
        let status = sync()
        var outcome: PresentationError?
        if status != 0 {
            let failure = PresentationError.storageFailed(
                "the disk could not sync the session log (\(String(cString: strerror(status)))); "
                    + "the change is not made here, but may be found on disk after a restart; "
                    + "writes are refused until then")
            let first = failed.withLock { failed in
                defer { failed = failed ?? failure }
                return failed == nil
            }
            if first { whenStopped.withLock { $0 }?(failure) }
            outcome = failure
        }
        for report in batch { report(outcome) }
    }

    /// Syncs and reports what was handed, then ends the thread; waits for it. For after the
    /// writer has stopped, so that nothing is handed later.
    func stop() {
        thread.stop()
    }
}
