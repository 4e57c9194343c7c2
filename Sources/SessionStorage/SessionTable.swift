import Foundation
import Presentation

/// The `sessions` and `events` tables: the SQL that creates, reads and writes them, on one
/// connection used by one thread at a time.
///
/// One row per session: the id, the encoded session (`SessionCodec`), and its lease, kept in
/// columns so that expired rows can be found without decoding. One row per kept event, keyed
/// by session, revision and place in the revision: a change adds its few events instead of
/// writing the session's whole history again, which made a durable change cost more the
/// longer a session lived (rows grew to about 15 KB at 512 kept events).
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
    private let selectEvents: SQLiteStatement
    /// What the file holds of each session; changed only after a commit.
    private var stored: [SessionID: Stored] = [:]

    private struct Stored {
        /// The session's row and events, for `storedBytes`.
        var size: Int
        /// Every kept event up to this revision has its row; nil when none has (a row of
        /// format 1 or 2 holds its events, and moves them out when next written).
        var eventsThrough: Int?
        /// The rows of events up to this revision are deleted.
        var droppedThrough: Int
    }
    private(set) var storedBytes = 0

    /// Marks our files, so that another program's SQLite database is not taken for one.
    static let applicationID = 0x5053_5331  // "PSS1"
    /// 2 added the events table; a version-1 file is upgraded when opened (`upgrade`).
    static let schemaVersion = 2
    static let schema = """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            body BLOB NOT NULL,
            last_access REAL NOT NULL,
            ttl INTEGER NOT NULL
        );
        \(eventsSchema)
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
    /// SQL that brings a file of an older schema version to this one. A version-1 file's rows
    /// (formats 1 and 2) keep their events inline and are read as they are; each moves its
    /// events out the next time it is written.
    static let upgrade = [1: "\(eventsSchema) PRAGMA user_version = \(schemaVersion);"]

    init(connection: SQLiteConnection) throws(SQLiteError) {
        self.connection = connection
        // IMMEDIATE: take the write lock at once, so a commit never fails half-way for want of it.
        begin = try connection.prepare("BEGIN IMMEDIATE")
        commit = try connection.prepare("COMMIT")
        upsert = try connection.prepare(
            """
            INSERT INTO sessions (id, body, last_access, ttl) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, last_access = excluded.last_access, ttl = excluded.ttl
            """)
        delete = try connection.prepare("DELETE FROM sessions WHERE id = ?1")
        touch = try connection.prepare("UPDATE sessions SET last_access = max(last_access, ?2) WHERE id = ?1")
        insertEvent = try connection.prepare(
            "INSERT OR REPLACE INTO events (session, revision, position, body) VALUES (?1, ?2, ?3, ?4)")
        dropEvents = try connection.prepare("DELETE FROM events WHERE session = ?1 AND revision <= ?2")
        deleteEvents = try connection.prepare("DELETE FROM events WHERE session = ?1")
        selectEvents = try connection.prepare(
            "SELECT body FROM events WHERE session = ?1 ORDER BY revision, position")
    }

    /// Every row, in no order: id, encoded session, lease.
    func rows(_ each: (String, [UInt8], SessionLease) throws -> Void) throws {
        let select = try connection.prepare("SELECT id, body, last_access, ttl FROM sessions")
        while try select.step() {
            let lease = SessionLease(
                timeToLive: select.integer(3), lastAccess: Date(timeIntervalSince1970: select.real(2)))
            try each(select.text(0) ?? "", select.blob(1), lease)
        }
    }

    /// A session's rows of events, oldest first.
    func events(of rawID: String) throws(SQLiteError) -> [[UInt8]] {
        try selectEvents.bind(.text(rawID))
        defer { selectEvents.reset() }
        var rows: [[UInt8]] = []
        while try selectEvents.step() { rows.append(selectEvents.blob(0)) }
        return rows
    }

    /// Notes a session read at start-up: its size, and whether its events had rows.
    func noteLoaded(_ session: Session, body: [UInt8], eventsHadRows: Bool) {
        let size = Self.storedSize(of: session, body: body)
        // Dropped through 0: restoring under a lower `eventsKept` trims history the file still
        // has, so the first write of each session deletes what it no longer keeps.
        stored[session.id] = Stored(size: size, eventsThrough: eventsHadRows ? session.revision : nil, droppedThrough: 0)
        storedBytes += size
    }

    /// Writes `writes` in one transaction: all of them, or (after a failure, rolled back) none.
    ///
    /// With `synchronous = FULL` in WAL mode, the COMMIT returns only after the log is fsync'd:
    /// the one fsync that every write of the batch shares.
    func apply(_ writes: [JournalWrite]) throws(SQLiteError) {
        do {
            try begin.run()
            for write in writes {
                switch write {
                case .save(let session, let body, let lease):
                    let id = session.id.rawValue
                    try upsert.bind(
                        .text(id), .blob(body), .real(lease.lastAccess.timeIntervalSince1970), .integer(lease.timeToLive))
                    try upsert.run()
                    try saveEvents(of: session, id: id)
                case .remove(let ids):
                    for id in ids {
                        try delete.bind(.text(id.rawValue))
                        try delete.run()
                        try deleteEvents.bind(.text(id.rawValue))
                        try deleteEvents.run()
                    }
                case .touch(let leases):
                    for (id, lease) in leases {
                        try touch.bind(.text(id.rawValue), .real(lease.lastAccess.timeIntervalSince1970))
                        try touch.run()
                    }
                }
            }
            try commit.run()
        } catch {
            // A failed COMMIT may have rolled back already (SQLITE_FULL does); never leave a transaction open.
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
        for write in writes {
            account(write)
        }
    }

    /// Adds the kept events newer than those stored, and deletes those dropped since.
    ///
    /// A session the table has no events of yet (new, imported, or read from a row of format
    /// 1 or 2) has all its kept events added. One write of a session is in flight at a time
    /// (SessionEntry), so `stored` is current here.
    private func saveEvents(of session: Session, id: String) throws(SQLiteError) {
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

    /// What a session takes in the file, for `storedBytes`: its row and its events.
    static func storedSize(of session: Session, body: [UInt8]) -> Int {
        body.count + session.keptEventBytes
    }

    private func account(_ write: JournalWrite) {
        switch write {
        case .save(let session, let body, _):
            let size = Self.storedSize(of: session, body: body)
            let before = stored.updateValue(
                Stored(size: size, eventsThrough: session.revision, droppedThrough: session.eventsDroppedThrough),
                forKey: session.id)
            storedBytes += size - (before?.size ?? 0)
        case .remove(let ids):
            for id in ids {
                storedBytes -= stored.removeValue(forKey: id)?.size ?? 0
            }
        case .touch:
            break
        }
    }
}
