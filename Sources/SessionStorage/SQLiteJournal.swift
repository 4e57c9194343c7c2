public import Presentation

/// The durable journal: sessions in one SQLite file (WAL mode) in the data directory, written by
/// group commit and made durable by an fsync of the log before any write is answered.
///
/// Sessions are encoded on the calling thread, so that work runs in parallel; only the
/// transaction and its fsync are shared. Reads never come here: the store serves them from memory.
public final class SQLiteJournal: SessionJournal {
    private let queue: CommitQueue
    /// Held until `close` (or `abandon`): no other server opens the directory meanwhile.
    private let lock: DataDirectoryLock
    /// The database file.
    public let path: String

    init(queue: CommitQueue, path: String, lock: DataDirectoryLock) {
        self.queue = queue
        self.path = path
        self.lock = lock
    }

    public func save(_ session: Session, over previous: StoredSession?, lease: SessionLease) throws(PresentationError)
        -> Int
    {
        let saved = SavedSession(session: session, over: previous, body: SessionCodec.encode(session), lease: lease)
        try queue.perform(.save(saved))
        return saved.bytes
    }

    public func save(
        _ session: Session, over previous: StoredSession?, lease: SessionLease,
        then done: @escaping @Sendable (Result<Int, PresentationError>) -> Void
    ) {
        let saved = SavedSession(session: session, over: previous, body: SessionCodec.encode(session), lease: lease)
        let bytes = saved.bytes
        queue.enqueue(.save(saved)) { failure in done(failure.map { .failure($0) } ?? .success(bytes)) }
    }

    /// The session's tree and the events it has that `previous` had not: a write logs those
    /// alone (`SessionTable.apply`), and the kept events `storedBytes` counts were each written
    /// once, by the change that made them. Charging them again on every change refused a form
    /// saving a 20 KB state after about 30 changes, each writing 40 KB, once its kept events
    /// had grown to megabytes. (A row still of format 1 or 2 brings its inline events along
    /// with its first write after start-up: that one write is charged less than it wrote.)
    public func writtenBytes(of session: Session, over previous: StoredSession?, storedBytes: Int) -> Int {
        var newEvents = 0
        session.forEachKeptEventRecord(after: previous?.revision ?? .min) { _, record in newEvents += record.count }
        return max(0, storedBytes - session.keptEventBytes) + newEvents
    }

    public func remove(_ sessions: [StoredSession]) throws(PresentationError) {
        try queue.perform(.remove(sessions))
    }

    public func remove(_ sessions: [StoredSession], then done: @escaping @Sendable (PresentationError?) -> Void) {
        queue.enqueue(.remove(sessions), then: done)
    }

    public func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError) {
        try queue.perform(.touch(leases))
    }

    public var storedBytes: Int { queue.storedBytes }

    /// `body` is told once, on the journal's sync thread, when a failed fsync stops durable
    /// writes until a restart (the server logs it then).
    public func whenWritesStop(_ body: @escaping @Sendable (PresentationError) -> Void) {
        queue.whenWritesStop(body)
    }

    public var statistics: JournalStatistics {
        JournalStatistics(
            transactions: queue.transactions, writes: queue.writes, syncs: queue.syncs, queuedWrites: queue.queued,
            storedBytes: queue.storedBytes, engineMemoryBytes: SQLiteConnection.heapBytes,
            writesStopped: queue.writesStopped)
    }

    /// Finishes queued writes, stops the writer and folds the log into the database file.
    /// Later writes fail with `.storageFailed`. For a clean shutdown; a crash needs none of it.
    public func close() {
        queue.stop()
        queue.checkpoint()
        lock.release()
    }

    /// Folds every session still in the log into its rows now. For tests that read the tables.
    func foldAll() throws(SQLiteError) {
        try queue.foldAll()
    }

    /// Finishes queued writes and stops the writer, leaving the file as a crash would: nothing
    /// folded, nothing checkpointed. For tests of what a restart reads back.
    func abandon() {
        queue.stop()
        lock.release()
    }
}
