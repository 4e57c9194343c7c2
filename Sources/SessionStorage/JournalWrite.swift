import Presentation

/// One change for the file, queued for the next group commit: a row of the log (SessionTable).
enum JournalWrite: Sendable {
    /// A session's new state (its encoded bytes and its lease) and the kept events the file
    /// lacks. The session is carried for its events (which of them are new is known only to the
    /// writer) and for folding it into its row later.
    case save(Session, body: [UInt8], lease: SessionLease)
    case remove([SessionID])
    /// Moves last-access times forward (never back) for rows that exist.
    case touch([SessionID: SessionLease])
}
