/// Where a store writes what it commits, so that sessions outlive the process (SessionStorage's SQLite file).
///
/// The store calls it under the session's lock, before a change becomes visible: when `save` or
/// `remove` returns, what it was given is on disk; when it throws, nothing of it was written and
/// the store keeps the session exactly as it was. Calls for different sessions may come from many
/// threads at once, which is what lets a journal commit them together.
public protocol SessionJournal: Sendable {
    /// Writes `session` (new or changed) and its lease over `previous`, what this journal
    /// holds of it (nil for a new session); returns once that is durable, with the bytes the
    /// session now takes in the journal, for the store to keep and hand back as `previous`.
    func save(_ session: Session, over previous: StoredSession?, lease: SessionLease) throws(PresentationError) -> Int

    /// Queues the same write and returns at once; `done` is called, on the journal's own
    /// thread, with the bytes once the write is durable or with the error that kept it off the
    /// disk. Writes queued by one thread, or ordered by the caller, reach the disk in that order.
    /// `done` must not wait for another write of this journal: it runs on a thread that makes them durable.
    func save(
        _ session: Session, over previous: StoredSession?, lease: SessionLease,
        then done: @escaping @Sendable (Result<Int, PresentationError>) -> Void)

    /// The bytes a write of `session` over `previous`, for which `save` answered `storedBytes`,
    /// put in the journal: what `WriteBudget` charges the session. A journal that keeps what it
    /// wrote before (a session's events, each written once) says less than `storedBytes`.
    func writtenBytes(of session: Session, over previous: StoredSession?, storedBytes: Int) -> Int

    /// Removes sessions, as last written; returns once that is durable.
    func remove(_ sessions: [StoredSession]) throws(PresentationError)

    /// Queues the same removal and returns at once; `done` as for `save(_:over:lease:then:)`.
    func remove(_ sessions: [StoredSession], then done: @escaping @Sendable (PresentationError?) -> Void)

    /// Records later last-access times, so that idle deadlines survive a restart closely.
    ///
    /// Reads are not promised to anyone, so this is batched by the caller and may be lost in a crash.
    func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError)

    /// Bytes of stored sessions, for the store's `maxStoredBytes`.
    var storedBytes: Int { get }

    /// Counts and sizes for `/metrics`. Read from any thread; each figure is current, not all of
    /// them from one instant.
    var statistics: JournalStatistics { get }
}

extension SessionJournal {
    /// For a journal that writes the whole session each time.
    public func writtenBytes(of session: Session, over previous: StoredSession?, storedBytes: Int) -> Int {
        storedBytes
    }

    /// For a journal that has no queue of its own: removes, then calls `done`, before returning.
    public func remove(_ sessions: [StoredSession], then done: @escaping @Sendable (PresentationError?) -> Void) {
        do {
            try remove(sessions)
            done(nil)
        } catch {
            done(error)
        }
    }
}
