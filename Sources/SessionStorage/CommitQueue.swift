import Foundation
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
        /// A caller of `enqueue` that did not wait: called on the writer thread with the outcome.
        case callback(@Sendable (PresentationError?) -> Void)
    }

    private struct State {
        var pending: [Job] = []
        /// Outcomes not yet collected, by ticket.
        var finished: [Int: PresentationError?] = [:]
        var nextTicket = 0
        var stopping = false
    }

    private let state = Mutex(State())
    private let syncer: SyncQueue
    /// The writer waits on this for work; callers signal it.
    private let work = NSCondition()
    /// `stop()` waits on this for the writer to end.
    private let done = NSCondition()
    /// Only the writer thread uses the table once the queue runs.
    private let table: Mutex<SessionTable>
    private let transactionCount = Atomic<Int>(0)
    private let writeCount = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
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
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "session-journal"
        thread.start()
    }

    var storedBytes: Int { bytes.load(ordering: .relaxed) }
    /// Transactions committed (or tried); fewer than `writes` when commits were grouped.
    var transactions: Int { transactionCount.load(ordering: .relaxed) }
    /// Writes that went through a transaction.
    var writes: Int { writeCount.load(ordering: .relaxed) }
    /// Fsyncs of the log: fewer than `transactions` when one covered several.
    var syncs: Int { syncer.syncs }
    /// Writes waiting for the next transaction (not the one being committed).
    var queued: Int { state.withLock { $0.pending.count } }

    /// Queues `write` and returns once it is durable, or throws and nothing of it was written.
    func perform(_ write: JournalWrite) throws(PresentationError) {
        let wake = DispatchSemaphore(value: 0)
        let ticket = try queue(write, .blocked(wake))
        if let failure = outcome(of: ticket, wake) { throw failure }
    }

    /// Queues `write` and returns at once; `done` gets its outcome on the writer thread, after
    /// the transaction that carried it. Unlike `perform`, a write queued so is never withdrawn:
    /// it waits for the disk however long that takes, as the request behind it does.
    func enqueue(_ write: JournalWrite, then done: @escaping @Sendable (PresentationError?) -> Void) {
        do {
            _ = try queue(write, .callback(done))
        } catch {
            done(error)
        }
    }

    private func queue(_ write: JournalWrite, _ waiter: Waiter) throws(PresentationError) -> Int {
        let ticket = try state.withLock { state throws(PresentationError) -> Int in
            guard !state.stopping else { throw .storageFailed("the server is stopping") }
            if let failure = syncer.failure { throw failure }
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.pending.append(Job(ticket: ticket, write: write, waiter: waiter))
            return ticket
        }
        work.lock()
        work.signal()
        work.unlock()
        return ticket
    }

    /// Waits for the writer to report on `ticket`. A write still queued after `patience` is
    /// withdrawn and fails; one already in a transaction is waited for, since it may yet land.
    private func outcome(of ticket: Int, _ wake: DispatchSemaphore) -> PresentationError? {
        let (seconds, attoseconds) = patience.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        if wake.wait(timeout: deadline) == .timedOut {
            let withdrawn = state.withLock { state in
                guard let index = state.pending.firstIndex(where: { $0.ticket == ticket }) else { return false }
                state.pending.remove(at: index)
                return true
            }
            if withdrawn { return .storageFailed("the disk did not take the write in \(patience)") }
            wake.wait()
        }
        return state.withLock { $0.finished.removeValue(forKey: ticket) } ?? nil
    }

    /// The writer thread: takes whatever is queued, commits it, reports, until stopped and drained.
    private func run() {
        while true {
            work.lock()
            var batch: [Job] = []
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
            var committed: [Job] = []
            var refused: [(Job, PresentationError?)] = []
            for (job, outcome) in zip(batch, commit(batch)) {
                if outcome == nil { committed.append(job) } else { refused.append((job, outcome)) }
            }
            report(refused)
            if !committed.isEmpty {
                syncer.hand { [self, committed] outcome in report(committed.map { ($0, outcome) }) }
            }
            // While the batch syncs: a fold is the file's housekeeping, and no request waits on it.
            // One that fails is tried again after the next batch; the log keeps what it would fold.
            table.withLock { table in try? table.foldIfDue() }
        }
        stopped.store(true, ordering: .releasing)
        done.lock()
        done.broadcast()
        done.unlock()
    }

    /// Hands each job its outcome: a blocked caller finds it in `finished`, a callback is called.
    private func report(_ jobs: [(Job, PresentationError?)]) {
        guard !jobs.isEmpty else { return }
        state.withLock { state in
            for (job, outcome) in jobs {
                if case .blocked = job.waiter { state.finished[job.ticket] = outcome }
            }
        }
        for (job, outcome) in jobs {
            switch job.waiter {
            case .blocked(let wake): wake.signal()
            case .callback(let done): done(outcome)
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
        state.withLock { $0.stopping = true }
        guard started.load(ordering: .relaxed) else { return syncer.stop() }
        work.lock()
        work.signal()
        work.unlock()
        done.lock()
        while !stopped.load(ordering: .acquiring) {
            done.wait()
        }
        done.unlock()
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
