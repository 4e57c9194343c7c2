import Presentation

/// One change for the file, queued for the next group commit: an entry of its row in the log (SessionTable).
enum JournalWrite: Sendable {
    case save(SavedSession)
    case remove([SessionID])
    /// Moves last-access times forward (never back) for rows that exist.
    case touch([SessionID: SessionLease])

    static func save(_ session: Session, body: [UInt8], lease: SessionLease) -> JournalWrite {
        .save(SavedSession(session: session, body: body, lease: lease))
    }
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
    let body: [UInt8]
    let lease: SessionLease

    init(session: Session, body: [UInt8], lease: SessionLease) {
        self.session = session
        self.body = body
        self.lease = lease
    }
}
