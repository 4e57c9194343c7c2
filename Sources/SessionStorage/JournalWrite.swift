import Presentation

/// One change for the sessions table, queued for the next group commit.
enum JournalWrite: Sendable {
    /// Inserts or replaces a session's row (its encoded bytes and its lease), adds the kept
    /// events the events table lacks and deletes those the session has dropped. The session
    /// is carried for its events: which of them are new is known only to the writer.
    case save(Session, body: [UInt8], lease: SessionLease)
    case remove([SessionID])
    /// Moves last-access times forward (never back) for rows that exist.
    case touch([SessionID: SessionLease])
}
