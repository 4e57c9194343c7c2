import Presentation

/// One change for the file, queued for the next group commit: an entry of its row in the log (SessionTable).
enum JournalWrite: Sendable {
    case save(SavedSession)
    /// Sessions as last written: their ids, and the bytes that `storedBytes` no longer counts.
    case remove([StoredSession])
    /// Moves last-access times forward (never back) for rows that exist.
    case touch([SessionID: SessionLease])
}

/// A session's new state (its encoded bytes and its lease) and the kept events the file lacks.
/// The session is carried for its events (which of them are new is known only to the writer),
/// and let go once its row is written: the log keeps bytes (`SessionLog.Unfolded`), so that no
/// later change of the session copies arrays this one still shares.
///
/// A class, so that a write is one reference: it is copied from the queue to the batch, to the
/// transaction and to the report, and each copy of a `Session` itself retains and releases
/// every array it holds (about 5,000 instructions a durable change, docs/performance.md).
final class SavedSession: Sendable {
    let session: Session
    /// What the file holds of the session, as the store tells it; nil for a new one.
    let previous: StoredSession?
    let body: [UInt8]
    let lease: SessionLease
    /// What it takes in the file: its row and its kept events, for `storedBytes`.
    let bytes: Int

    init(session: Session, over previous: StoredSession?, body: [UInt8], lease: SessionLease) {
        self.session = session
        self.previous = previous
        self.body = body
        self.lease = lease
        bytes = SessionTable.storedSize(of: session, body: body)
    }
}
