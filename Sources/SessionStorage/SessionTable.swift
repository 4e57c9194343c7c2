import CSQLite
import Foundation
import Presentation

/// The `sessions`, `events` and `log` tables: the SQL that creates, reads and writes them, on
/// one connection used by one thread at a time.
///
/// One row per session: the id, the encoded session (`SessionCodec`), and its lease, kept in
/// columns so that expired rows can be found without decoding. One row per kept event, keyed
/// by session, revision and place in the revision, so that a session's history is written a
/// few events at a time (rows grew to about 15 KB at 512 kept events when it was inline).
///
/// A change goes to neither: it appends a row to the log (its session's bytes, lease and new
/// events), and the session is folded into the two tables later, once for many changes
/// (`SessionLog`). Start-up reads the tables, then the log over them.
final class SessionTable {
    let connection: SQLiteConnection
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let upsert: SQLiteStatement
    private let delete: SQLiteStatement
    private let touch: SQLiteStatement
    private let insertEvent: SQLiteStatement
    private let dropEvents: SQLiteStatement
    private let deleteEvents: SQLiteStatement
    let selectEvents: SQLiteStatement
    private let appendLog: SQLiteStatement
    let cutLog: SQLiteStatement
    /// What the file holds of each session; changed only after a commit.
    // Internal rather than private for SessionTable+Recovery.swift: start-up fills them.
    var stored: [SessionID: Stored] = [:]
    var log = SessionLog(next: 1)
    /// Sessions start-up found newer in the log than in the tables, for `settle`.
    var recovered: [SessionLog.Unfolded] = []
    /// The log's size, in bytes of rows, past which the oldest sessions are folded.
    let foldThreshold: Int

    struct Stored {
        /// The session's row and events, for `storedBytes`.
        var size: Int
        /// Every kept event up to this revision has its row in the events table; nil when none
        /// has (a row of format 1 or 2 holds its events, and moves them out when next folded).
        var eventsThrough: Int?
        /// The rows of events up to this revision are deleted.
        var droppedThrough: Int
        /// Every kept event up to this revision is in the events table or in a row of the log.
        var loggedThrough: Int
    }
    var storedBytes = 0

    /// Marks our files, so that another program's SQLite database is not taken for one.
    static let applicationID = 0x5053_5331  // "PSS1"
    /// 2 added the events table, 3 the log; older files are upgraded when opened (`upgrade`).
    static let schemaVersion = 3
    static let schema = """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            body BLOB NOT NULL,
            last_access REAL NOT NULL,
            ttl INTEGER NOT NULL
        );
        \(eventsSchema)
        \(logSchema)
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(schemaVersion);
        """
    private static let eventsSchema = """
        CREATE TABLE events (
            session TEXT NOT NULL,
            revision INTEGER NOT NULL,
            position INTEGER NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (session, revision, position)
        ) WITHOUT ROWID;
        """
    /// `kind`: a `LogKind`. `body`, `revision` and `events` are empty (0) but for a saved state;
    /// `events` holds the session's events new since its previous row (`SessionCodec.packEvents`).
    private static let logSchema = """
        CREATE TABLE log (
            seq INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            kind INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            body BLOB NOT NULL,
            last_access REAL NOT NULL,
            ttl INTEGER NOT NULL,
            events BLOB NOT NULL
        );
        """
    /// SQL that brings a file of an older schema version to this one. A version-1 file's rows
    /// (formats 1 and 2) keep their events inline and are read as they are; each moves its
    /// events out the next time it is folded.
    static let upgrade = [
        1: "\(eventsSchema) \(logSchema) PRAGMA user_version = \(schemaVersion);",
        2: "\(logSchema) PRAGMA user_version = \(schemaVersion);",
    ]

    /// What a row of the log says of its session.
    enum LogKind: Int {
        /// The session's state after a change, creation, import or token rotation.
        case saved = 0
        /// The session's last access moved forward; only written for an unfolded session.
        case touched = 1
        /// The session was deleted (its rows in the tables went in the same transaction).
        case removed = 2
    }

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
        insertEvent = try connection.prepare(
            "INSERT OR REPLACE INTO events (session, revision, position, body) VALUES (?1, ?2, ?3, ?4)")
        dropEvents = try connection.prepare("DELETE FROM events WHERE session = ?1 AND revision <= ?2")
        deleteEvents = try connection.prepare("DELETE FROM events WHERE session = ?1")
        selectEvents = try connection.prepare(
            "SELECT revision, body FROM events WHERE session = ?1 ORDER BY revision, position")
        appendLog = try connection.prepare(
            """
            INSERT INTO log (seq, session, kind, revision, body, last_access, ttl, events)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        cutLog = try connection.prepare("DELETE FROM log WHERE seq < ?1")
    }

    // MARK: Writing

    /// Writes `writes` in one transaction: all of them, or (after a failure, rolled back) none.
    ///
    /// With `synchronous = NORMAL` in WAL mode, the COMMIT writes the log and returns: the
    /// fsync that makes the batch durable is `SyncQueue`'s, shared with the batches around it.
    func apply(_ writes: [JournalWrite]) throws(SQLiteError) {
        var rows: [(size: Int, id: SessionID, kind: LogKind, write: JournalWrite)] = []
        try transaction { () throws(SQLiteError) in
            // Events logged by earlier writes of this batch, which `stored` does not know yet.
            var loggedThrough: [SessionID: Int] = [:]
            func append(_ id: SessionID, _ kind: LogKind, _ write: JournalWrite, revision: Int = 0,
                        body: [UInt8] = [], lease: SessionLease?, events: [UInt8] = []) throws(SQLiteError) {
                try appendLog.bind(
                    .integer(log.next + rows.count), .text(id.rawValue), .integer(kind.rawValue), .integer(revision),
                    .blob(body), .real(lease?.lastAccess.timeIntervalSince1970 ?? 0), .integer(lease?.timeToLive ?? 0),
                    .blob(events))
                try appendLog.run()
                rows.append((body.count + events.count + Self.logRowOverhead, id, kind, write))
            }
            for write in writes {
                switch write {
                case .save(let session, let body, let lease):
                    let after = loggedThrough[session.id] ?? stored[session.id]?.loggedThrough ?? .min
                    try append(
                        session.id, .saved, write, revision: session.revision, body: body, lease: lease,
                        events: SessionCodec.packEvents(of: session, after: after))
                    loggedThrough[session.id] = session.revision
                case .remove(let ids):
                    for id in ids {
                        try removeRows(of: id)
                        try append(id, .removed, write, lease: nil)
                        loggedThrough[id] = .min
                    }
                case .touch(let leases):
                    for (id, lease) in leases {
                        try touch.bind(.text(id.rawValue), .real(lease.lastAccess.timeIntervalSince1970))
                        try touch.run()
                        // The tables lack an unfolded session's latest state: its lease must be in the log.
                        if log.unfolded[id] != nil || loggedThrough[id] != nil {
                            try append(id, .touched, .touch([id: lease]), lease: lease)
                        }
                    }
                }
            }
        }
        for row in rows {
            switch row.write {
            case .save(let session, let body, let lease):
                log.append(size: row.size, for: row.id, saving: (session, body, lease), removed: false)
                let size = Self.storedSize(of: session, body: body)
                let before = stored[row.id]
                stored[row.id] = Stored(
                    size: size, eventsThrough: before?.eventsThrough, droppedThrough: before?.droppedThrough ?? 0,
                    loggedThrough: session.revision)
                storedBytes += size - (before?.size ?? 0)
            case .remove:
                log.append(size: row.size, for: row.id, saving: nil, removed: true)
                storedBytes -= stored.removeValue(forKey: row.id)?.size ?? 0
            case .touch:
                log.append(size: row.size, for: row.id, saving: nil, removed: false)
            }
        }
        for write in writes {
            guard case .touch(let leases) = write else { continue }
            for (id, lease) in leases { log.touch(id, lease: lease) }
        }
    }

    /// What a row of the log takes besides its body and events, roughly: for `foldThreshold`.
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
        for unfolded in sessions { noteFolded(unfolded.session) }
        log.folded(ids, head: head)
    }

    /// The session's row, and the events the events table lacks; deletes those it dropped.
    func write(_ unfolded: SessionLog.Unfolded) throws(SQLiteError) {
        let session = unfolded.session
        let id = session.id.rawValue
        try upsert.bind(
            .text(id), .blob(unfolded.body), .real(unfolded.lease.lastAccess.timeIntervalSince1970),
            .integer(unfolded.lease.timeToLive))
        try upsert.run()
        let known = stored[session.id]
        var position = 0
        var previous = Int.min
        try session.forEachKeptEventRecord(after: known?.eventsThrough ?? .min) { revision, record throws(SQLiteError) in
            position = revision == previous ? position + 1 : 0
            previous = revision
            try insertEvent.bind(.text(id), .integer(revision), .integer(position), .blob(Array(record)))
            try insertEvent.run()
        }
        if session.eventsDroppedThrough > known?.droppedThrough ?? 0 {
            try dropEvents.bind(.text(id), .integer(session.eventsDroppedThrough))
            try dropEvents.run()
        }
    }

    func noteFolded(_ session: Session) {
        stored[session.id]?.eventsThrough = session.revision
        stored[session.id]?.droppedThrough = session.eventsDroppedThrough
    }

    func removeRows(of id: SessionID) throws(SQLiteError) {
        try delete.bind(.text(id.rawValue))
        try delete.run()
        try deleteEvents.bind(.text(id.rawValue))
        try deleteEvents.run()
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
            throw error
        }
    }

    /// What a session takes in the file, for `storedBytes`: its row and its events.
    static func storedSize(of session: Session, body: [UInt8]) -> Int {
        body.count + session.keptEventBytes
    }
}
