import CSQLite
import Presentation

/// The `sessions`, `event_chunks` and `log` tables: the SQL that creates, reads and writes
/// them, on one connection used by one thread at a time.
///
/// One row per session: the id, the encoded session (`SessionCodec`), and its lease, kept in
/// columns so that expired rows can be found without decoding. Its kept events are chunks, one
/// per fold that had new events (`SessionCodec.packEvents`), keyed by session and the revision
/// the chunk runs through, so that a session's history is written a few events at a time (rows
/// grew to about 15 KB at 512 kept events when it was inline), in one insert a fold (schema 2's
/// row per event made a fold of 16 changes 17 inserts, and folds a tenth of the server's time).
///
/// A change goes to neither: it is an entry (its session's bytes, lease and new events) in the
/// row its group commit appends to the log, and the session is folded into the two tables
/// later, once for many changes (`SessionLog`). Start-up reads the tables, then the log over them.
final class SessionTable {
    let connection: SQLiteConnection
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let upsert: SQLiteStatement
    private let delete: SQLiteStatement
    private let touch: SQLiteStatement
    private let insertChunk: SQLiteStatement
    private let dropChunks: SQLiteStatement
    private let deleteChunks: SQLiteStatement
    private let appendLog: SQLiteStatement
    let cutLog: SQLiteStatement
    // What the file holds of each session (its revision, its size) is not kept here but told
    // with each write (`StoredSession`, from the store, which keeps the session anyway).
    /// Sessions whose row still holds its events inline (formats 1 and 2), none in chunks,
    /// until their next fold moves them out: empty but after start-up on an older file.
    // Internal rather than private for SessionTable+Recovery.swift: start-up fills it.
    var inlineEvents: Set<SessionID> = []
    var log = SessionLog(next: 1)
    /// Sessions start-up found newer in the log than in the tables, for `settle`.
    var recovered: [SessionLog.Unfolded] = []
    /// The log's size, in bytes of rows, past which the oldest sessions are folded.
    let foldThreshold: Int

    /// Bytes of the sessions in the file, as `storedSize` counts them.
    var storedBytes = 0

    init(connection: SQLiteConnection, foldThreshold: Int) throws(SQLiteError) {
        self.connection = connection
        self.foldThreshold = foldThreshold
        // IMMEDIATE: take the write lock at once, so a commit never fails half-way for want of it.
        begin = try connection.prepare("BEGIN IMMEDIATE")
        commit = try connection.prepare("COMMIT")
        upsert = try connection.prepare(
            """
            INSERT INTO sessions (id, body, last_access, ttl) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, last_access = max(last_access, excluded.last_access),
                ttl = excluded.ttl
            """)
        delete = try connection.prepare("DELETE FROM sessions WHERE id = ?1")
        touch = try connection.prepare("UPDATE sessions SET last_access = max(last_access, ?2) WHERE id = ?1")
        insertChunk = try connection.prepare(
            "INSERT OR REPLACE INTO event_chunks (session, through, body) VALUES (?1, ?2, ?3)")
        dropChunks = try connection.prepare("DELETE FROM event_chunks WHERE session = ?1 AND through <= ?2")
        deleteChunks = try connection.prepare("DELETE FROM event_chunks WHERE session = ?1")
        appendLog = try connection.prepare("INSERT INTO log (seq, entries) VALUES (?1, ?2)")
        cutLog = try connection.prepare("DELETE FROM log WHERE seq < ?1")
    }

    // MARK: Writing

    /// Writes `writes` in one transaction: all of them, or (after a failure, rolled back) none.
    ///
    /// With `synchronous = NORMAL` in WAL mode, the COMMIT writes the log and returns: the
    /// fsync that makes the batch durable is `SyncQueue`'s, shared with the batches around it.
    func apply(_ writes: [JournalWrite]) throws(SQLiteError) {
        // Each entry of the batch's row, with the write it stands for and the events its
        // session's next fold is to have from it: what `log` and `storedBytes` learn once committed.
        var entries: [(id: SessionID, write: JournalWrite, foldEvents: [UInt8])] = []
        var rowSize = 0
        var removedBytes = 0
        try transaction { () throws(SQLiteError) in
            // Events logged by earlier writes of this batch, which the store did not know of yet.
            var loggedThrough: [SessionID: Int] = [:]
            // A session encodes to about 1 KB; more room is made as needed.
            var row = ByteWriter(capacity: 1_152 * writes.count)
            SessionCodec.beginLogRow(&row)
            for write in writes {
                switch write {
                case .save(let saved):
                    let session = saved.session
                    let id = session.id
                    // Each dictionary is asked once: hashing an id is about 200 instructions.
                    let loggedInBatch = loggedThrough[id]
                    let known = saved.previous
                    // A fold writes the events the chunks lack, gathered from the entries since the
                    // last fold. The log's events are those, but for a row of format 1 or 2: its events
                    // are inline, none in chunks, so the first entry since its fold brings them all;
                    // in the log too, where a restart before that fold finds the row's inline events
                    // replaced by the entry's body, which has none.
                    let bringsAll =
                        known != nil && !inlineEvents.isEmpty && inlineEvents.contains(id) && loggedInBatch == nil
                        && log.unfolded[id] == nil
                    let events = SessionCodec.packEvents(
                        of: session, after: bringsAll ? .min : loggedInBatch ?? known?.revision ?? .min)
                    SessionCodec.appendSaved(
                        id, revision: session.revision, body: saved.body, lease: saved.lease, events: events, to: &row)
                    entries.append((id, write, events))
                    loggedThrough[id] = session.revision
                case .remove(let sessions):
                    for session in sessions {
                        let id = session.id
                        removedBytes += session.bytes
                        try removeRows(of: id)
                        SessionCodec.appendRemoved(id, to: &row)
                        entries.append((id, write, []))
                        loggedThrough[id] = .min
                    }
                case .touch(let leases):
                    for (id, lease) in leases {
                        try touch.bind(.sessionID(id), .real(lease.lastAccess.timeIntervalSince1970))
                        try touch.run()
                        // The tables lack an unfolded session's latest state: its lease must be in the log.
                        if log.unfolded[id] != nil || loggedThrough[id] != nil {
                            SessionCodec.appendTouched(id, lease: lease, to: &row)
                            entries.append((id, .touch([id: lease]), []))
                        }
                    }
                }
            }
            // Touches of folded sessions alone leave nothing for the log.
            guard !entries.isEmpty else { return }
            SessionCodec.sealLogRow(&row)
            try appendLog.bind(.integer(log.next), .blob(row.bytes))
            try appendLog.run()
            rowSize = row.count + Self.logRowOverhead
        }
        guard !entries.isEmpty else { return }
        let sequence = log.appendRow(size: rowSize)
        storedBytes -= removedBytes
        for entry in entries {
            switch entry.write {
            case .save(let saved):
                let session = saved.session
                log.note(
                    entry.id, in: sequence,
                    saving: SessionLog.SavedRow(
                        revision: session.revision, body: saved.body, lease: saved.lease, events: entry.foldEvents,
                        eventsDroppedThrough: session.eventsDroppedThrough,
                        tableDroppedThrough: saved.previous?.eventsDroppedThrough ?? 0),
                    removed: false)
                storedBytes += saved.bytes - (saved.previous?.bytes ?? 0)
            case .remove:
                log.note(entry.id, in: sequence, saving: nil, removed: true)
                if !inlineEvents.isEmpty { inlineEvents.remove(entry.id) }
            case .touch(let leases):
                // Only an unfolded session's touch has an entry; a folded one's went to its table row.
                for (id, lease) in leases { log.touch(id, lease: lease) }
            }
        }
    }

    /// What a row of the log takes besides its entries, roughly: for `foldThreshold`.
    static let logRowOverhead = 48

    /// Folds the oldest unfolded sessions once the log holds more than `foldThreshold` bytes,
    /// `foldLimit` at a time, until it holds three quarters of that; and on, until it holds
    /// less than twice that, when changes come faster than one fold a batch keeps up with
    /// (many sessions, each changed once: a fold then frees one row).
    func foldIfDue() throws(SQLiteError) {
        guard log.bytes > foldThreshold else { return }
        // Nothing waits for a fold to be durable: the log rows it folds are already, and the rows
        // it deletes go in the same transaction. The next sync covers it, or a crash undoes it whole.
        repeat {
            let (ids, head) = log.plan(toAtMost: foldThreshold - foldThreshold / 4, limit: Self.foldLimit)
            try fold(ids, cuttingLogTo: head)
        } while log.bytes > 2 * foldThreshold
    }

    /// Sessions folded in one transaction: a fold holds up the changes queued meanwhile, and
    /// more at a time made durable push/pop's p99 worse without making it faster (item 39).
    static let foldLimit = 32

    /// Folds every unfolded session and empties the log; for a clean shutdown.
    func foldAll() throws(SQLiteError) {
        let (ids, head) = log.planAll()
        try fold(ids, cuttingLogTo: head)
    }

    private func fold(_ ids: [SessionID], cuttingLogTo head: Int) throws(SQLiteError) {
        let sessions = ids.compactMap { log.unfolded[$0] }
        guard !sessions.isEmpty || head > log.head else { return }
        try transaction { () throws(SQLiteError) in
            for unfolded in sessions { try write(unfolded) }
            try cutLog.bind(.integer(head))
            try cutLog.run()
        }
        for unfolded in sessions { noteFolded(unfolded) }
        log.folded(ids, head: head)
    }

    /// The session's row, and a chunk of the events the table lacks; deletes the chunks of
    /// events it has dropped. A chunk the drop falls inside stays until all of it is dropped
    /// (start-up skips its dropped events).
    func write(_ unfolded: SessionLog.Unfolded) throws(SQLiteError) {
        let id = unfolded.id
        try upsert.bind(
            .sessionID(id), .blob(unfolded.body), .real(unfolded.lease.lastAccess.timeIntervalSince1970),
            .integer(unfolded.lease.timeToLive))
        try upsert.run()
        // Its rows' events since the last fold, less those its history has dropped meanwhile.
        let chunk = SessionCodec.events(unfolded.events, after: unfolded.eventsDroppedThrough)
        if !chunk.isEmpty {
            try insertChunk.bind(.sessionID(id), .integer(unfolded.revision), .blob(SessionCodec.chunk(of: chunk)))
            try insertChunk.run()
        }
        if unfolded.eventsDroppedThrough > unfolded.tableDroppedThrough {
            try dropChunks.bind(.sessionID(id), .integer(unfolded.eventsDroppedThrough))
            try dropChunks.run()
        }
    }

    func noteFolded(_ unfolded: SessionLog.Unfolded) {
        if !inlineEvents.isEmpty { inlineEvents.remove(unfolded.id) }
    }

    func removeRows(of id: SessionID) throws(SQLiteError) {
        try delete.bind(.sessionID(id))
        try delete.run()
        try deleteChunks.bind(.sessionID(id))
        try deleteChunks.run()
    }

    /// Runs `body` between BEGIN and COMMIT; rolls back when either fails.
    func transaction(_ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        do {
            try begin.run()
            try body()
            try commit.run()
        } catch {
            // A failed COMMIT may have rolled back already (SQLITE_FULL does); never leave a transaction open.
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            // Its frames may be in the log past the index's end, where a crash's recovery would
            // find them committed (`FailedCommitFrames`).
            _ = FailedCommitFrames.cutOff(of: connection)
            throw error
        }
    }

    /// What a session takes in the file, for `storedBytes`: its row and its events.
    static func storedSize(of session: Session, body: [UInt8]) -> Int {
        body.count + session.keptEventBytes
    }
}
