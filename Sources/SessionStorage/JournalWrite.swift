import Presentation

/// One change for the sessions table, queued for the next group commit.
enum JournalWrite: Sendable {
    /// Inserts or replaces a session's row: its encoded bytes and its lease.
    case save(SessionID, body: [UInt8], lease: SessionLease)
    case remove([SessionID])
    /// Moves last-access times forward (never back) for rows that exist.
    case touch([SessionID: SessionLease])
}
