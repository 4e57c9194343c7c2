import Dispatch
import Presentation
import Synchronization

/// Group commit: callers on many threads queue writes; one writer thread commits everything
/// queued in one transaction and hands it to `SyncQueue`, which wakes each caller of the batch
/// once an fsync has made it durable.
///
/// A caller waits until its write is durable (that is the promise a 2xx makes) but never for
/// the disk alone: while one batch is being synced, the next ones are committed.
final class CommitQueue: Sendable {
    private struct Job: Sendable {
        let ticket: Int
        let write: JournalWrite
        let waiter: Waiter
    }

    /// Who hears of a write's outcome.
    private enum Waiter: Sendable {
        /// A caller blocked in `perform`, signalled once the outcome is in `finished`: each
        /// caller is woken alone. Waking every waiting worker after each batch, only for most
        /// of them to find their write still pending and sleep again, cost more CPU than the
        /// writes (docs/performance.md).
        case blocked(DispatchSemaphore)
        /// A caller of `enqueue` that did not wait: called with the outcome on the sync thread
        /// (the writer's, when the transaction itself failed).
        case callback(@Sendable (PresentationError?) -> Void)
    }

    private struct State {
        /// Outcomes not yet collected, by ticket.
        var finished: [Int: PresentationError?] = [:]
        var nextTicket = 0
    }

    private let state = Mutex(State())
    private let writer = BatchThread<Job>()
    private let syncer: SyncQueue
    /// Only the writer thread uses the table once the queue runs.
    private let table: Mutex<SessionTable>
    private let transactionCount = Atomic<Int>(0)
    private let writeCount = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    /// How long a caller waits for a write still queued before giving up on it.
    private let patience: Duration

    /// `sync` makes what the table has committed durable (`WALFile.sync`): 0, or an `errno`.
    init(
        table: consuming sending SessionTable, sync: @escaping @Sendable () -> Int32,
        patience: Duration = .seconds(30)
    ) {
        syncer = SyncQueue(sync: sync)
        bytes.store(table.storedBytes, ordering: .relaxed)
        self.table = Mutex(table)
        self.patience = patience
    }

    /// Starts the writer thread.
    func start() {
        writer.start(name: "session-journal") { [self] batch in write(batch) }
    }

    var storedBytes: Int { bytes.load(ordering: .relaxed) }
    /// Transactions committed (or tried); fewer than `writes` when commits were grouped.
    var transactions: Int { transactionCount.load(ordering: .relaxed) }
    /// Writes that went through a transaction.
    var writes: Int { writeCount.load(ordering: .relaxed) }
    /// Fsyncs of the log: fewer than `transactions` when one covered several.
    var syncs: Int { syncer.syncs }
    /// True once a failed fsync stopped every later write (`SyncQueue.failure`).
    var writesStopped: Bool { syncer.failure != nil }
    /// `body` is told once when a failed fsync stops every later write (`SyncQueue`).
    func whenWritesStop(_ body: @escaping @Sendable (PresentationError) -> Void) {
        syncer.whenWritesStop(body)
    }
    /// Writes waiting for the next transaction (not the one being committed).
    var queued: Int { writer.queued }

    /// Queues `write` and returns once it is durable, or throws and nothing of it was written.
    func perform(_ write: JournalWrite) throws(PresentationError) {
        let wake = DispatchSemaphore(value: 0)
        let ticket = try queue(write, .blocked(wake))
        if let failure = outcome(of: ticket, wake) { throw failure }
    }

    /// Queues `write` and returns at once; `done` gets its outcome once the transaction that
    /// carried it is synced (on the sync thread), or failed (on the writer thread). Unlike
    /// `perform`, a write queued so is never withdrawn: it waits for the disk however long that
    /// takes, as the request behind it does.
    func enqueue(_ write: JournalWrite, then done: @escaping @Sendable (PresentationError?) -> Void) {
        do {
            _ = try queue(write, .callback(done))
        } catch {
            done(error)
        }
    }

    private func queue(_ write: JournalWrite, _ waiter: Waiter) throws(PresentationError) -> Int {
        if let failure = syncer.failure { throw failure }
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        guard writer.add(Job(ticket: ticket, write: write, waiter: waiter)) else {
            throw .storageFailed("the server is stopping")
        }
        return ticket
    }

    /// Waits for the writer to report on `ticket`. A write still queued after `patience` is
    /// withdrawn and fails; one already in a transaction is waited for, since it may yet land.
    private func outcome(of ticket: Int, _ wake: DispatchSemaphore) -> PresentationError? {
        let (seconds, attoseconds) = patience.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        if wake.wait(timeout: deadline) == .timedOut {
            if writer.withdraw(where: { $0.ticket == ticket }) { return .storageFailed("the disk did not take the write in \(patience)") }
            wake.wait()
        }
        return state.withLock { $0.finished.removeValue(forKey: ticket) } ?? nil
    }

    /// One batch on the writer thread: commits it, hands what was committed to the sync thread
    /// and reports what was refused, then folds if the log is due.
    private func write(_ batch: [Job]) {
        // Who waits, not what was written: the writes (and the sessions they carry) go with the
        // batch, not after the fsync.
        var committed: [(ticket: Int, waiter: Waiter)] = []
        var refused: [(ticket: Int, waiter: Waiter, outcome: PresentationError?)] = []
        for (job, outcome) in zip(batch, commit(batch)) {
            if outcome == nil {
                committed.append((job.ticket, job.waiter))
            } else {
                refused.append((job.ticket, job.waiter, outcome))
            }
        }
        report(refused)
        if !committed.isEmpty {
            syncer.hand { [self, committed] outcome in report(committed.map { ($0.ticket, $0.waiter, outcome) }) }
        }
        // While the batch syncs: a fold is the file's housekeeping, and no request waits on it.
        // One that fails is tried again after the next batch; the log keeps what it would fold.
        table.withLock { table in try? table.foldIfDue() }
    }

    /// Hands each job its outcome: a blocked caller finds it in `finished`, a callback is called.
    private func report(_ jobs: [(ticket: Int, waiter: Waiter, outcome: PresentationError?)]) {
        guard !jobs.isEmpty else { return }
        state.withLock { state in
            for job in jobs {
                if case .blocked = job.waiter { state.finished[job.ticket] = job.outcome }
            }
        }
        for job in jobs {
            switch job.waiter {
            case .blocked(let wake): wake.signal()
            case .callback(let done): done(job.outcome)
            }
        }
    }

    /// One transaction for the batch; when it fails and holds several writes, each is retried
    /// alone, so that one write the disk refuses does not fail the others.
    private func commit(_ batch: [Job]) -> [PresentationError?] {
        table.withLock { table in
            transactionCount.add(1, ordering: .relaxed)
            writeCount.add(batch.count, ordering: .relaxed)
            var outcomes: [PresentationError?]
            do throws(SQLiteError) {
                try table.apply(batch.map(\.write))
                outcomes = Array(repeating: nil, count: batch.count)
            } catch {
                outcomes = [error.presentationError]
                if batch.count > 1 {
                    outcomes = batch.map { job in
                        transactionCount.add(1, ordering: .relaxed)
                        do throws(SQLiteError) {
                            try table.apply([job.write])
                            return nil
                        } catch {
                            return error.presentationError
                        }
                    }
                }
            }
            bytes.store(table.storedBytes, ordering: .relaxed)
            return outcomes
        }
    }

    /// Lets queued writes finish and sync, then ends the writer and sync threads; later writes
    /// fail. Waits for both threads.
    func stop() {
        writer.stop()
        syncer.stop()
    }

    /// Folds every session still in the log into its rows, between two batches.
    func foldAll() throws(SQLiteError) {
        try table.withLock { table throws(SQLiteError) in try table.foldAll() }
    }

    /// Folds every session still in the log into its rows, then SQLite's write-ahead log into
    /// the database file; for after `stop()`, on a clean shutdown, which so leaves one file.
    func checkpoint() {
        table.withLock { table in
            try? table.foldAll()
            _ = try? table.connection.texts("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
