#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import CSQLite
import Presentation

/// The file's schema, and how older ones are brought to it.
extension SessionTable {
    /// Marks our files, so that another program's SQLite database is not taken for one.
    static let applicationID = 0x5053_5331  // "PSS1"
    /// 2 added a table of events (a row each), 3 the log (a row a change) and chunks of events
    /// in place of that table, 4 the log a row a group commit; older files are upgraded when
    /// opened (`upgrade`, `repackEvents`, `repackLog`).
    static let schemaVersion = 4
    static let schema = """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            body BLOB NOT NULL,
            last_access REAL NOT NULL,
            ttl INTEGER NOT NULL
        );
        \(chunksSchema)
        \(logSchema)
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(schemaVersion);
        """
    private static let chunksSchema = """
        CREATE TABLE event_chunks (
            session TEXT NOT NULL,
            through INTEGER NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (session, through)
        ) WITHOUT ROWID;
        """
    /// `entries`: the changes of one group commit (`SessionCodec.LogEntry`).
    private static let logSchema = """
        CREATE TABLE log (
            seq INTEGER PRIMARY KEY,
            entries BLOB NOT NULL
        );
        """
    /// SQL that brings a file of an older schema version to this one. A version-1 file's rows
    /// (formats 1 and 2) keep their events inline and are read as they are; each moves its
    /// events out the next time it is folded. A version-2 file's events are then repacked
    /// (`repackEvents`), and a version-3 file's log (`repackLog`), in the same transaction.
    static let upgrade = [
        1: "\(chunksSchema) \(logSchema) PRAGMA user_version = \(schemaVersion);",
        2: "\(chunksSchema) \(logSchema) PRAGMA user_version = \(schemaVersion);",
        3: "ALTER TABLE log RENAME TO log_v3; \(logSchema) PRAGMA user_version = \(schemaVersion);",
    ]

    /// Schema 2's `events` table (a row per event) into chunks, a session's events in one, and
    /// the table dropped. Part of the upgrade from version 2.
    static func repackEvents(_ connection: SQLiteConnection) throws(SQLiteError) {
        let select = try connection.prepare("SELECT session, revision, body FROM events ORDER BY session, revision, position")
        let insert = try connection.prepare("INSERT INTO event_chunks (session, through, body) VALUES (?1, ?2, ?3)")
        var session: String?
        var through = 0
        var writer = ByteWriter()
        writer.byte(SessionCodec.chunkMarker)
        func flush() throws(SQLiteError) {
            guard let session else { return }
            writer.seal()
            try insert.bind(.text(session), .integer(through), .blob(writer.bytes))
            try insert.run()
            writer = ByteWriter()
            writer.byte(SessionCodec.chunkMarker)
        }
        while try select.step() {
            let rowSession = select.text(0) ?? ""
            if rowSession != session {
                try flush()
                session = rowSession
            }
            through = select.integer(1)
            let record = select.blob(2)
            writer.integer(through)
            writer.unsigned(UInt64(record.count))
            writer.raw(record[...])
        }
        try flush()
        try connection.execute("DROP TABLE events")
    }

    /// Schema 3's log (a row a change, still there after a crash; a clean shutdown empties it)
    /// into rows of one entry each, under the same sequence numbers, and the old table dropped.
    /// Part of the upgrade from version 3.
    static func repackLog(_ connection: SQLiteConnection) throws(SQLiteError) {
        let select = try connection.prepare(
            "SELECT seq, session, kind, revision, body, last_access, ttl, events FROM log_v3 ORDER BY seq")
        let insert = try connection.prepare("INSERT INTO log (seq, entries) VALUES (?1, ?2)")
        while try select.step() {
            let sequence = select.integer(0)
            let rawID = select.text(1) ?? ""
            guard let id = SessionID(rawValue: rawID), let kind = LogKind(rawValue: select.integer(2)) else {
                throw SQLiteError(code: SQLITE_CORRUPT, message: "log row \(sequence) of schema 3 cannot be read")
            }
            let lease = SessionLease(timeToLive: select.integer(6), lastAccess: Date(timeIntervalSince1970: select.real(5)))
            var entry = ByteWriter(capacity: 256)
            SessionCodec.beginLogRow(&entry)
            switch kind {
            case .saved:
                SessionCodec.appendSaved(
                    id, revision: select.integer(3), body: select.blob(4), lease: lease, events: select.blob(7), to: &entry)
            case .touched: SessionCodec.appendTouched(id, lease: lease, to: &entry)
            case .removed: SessionCodec.appendRemoved(id, to: &entry)
            }
            SessionCodec.sealLogRow(&entry)
            try insert.bind(.integer(sequence), .blob(entry.bytes))
            try insert.run()
        }
        try connection.execute("DROP TABLE log_v3")
    }

    /// What an entry of the log says of its session (`SessionCodec.LogEntry`).
    enum LogKind: Int {
        /// The session's state after a change, creation, import or token rotation.
        case saved = 0
        /// The session's last access moved forward; only written for an unfolded session.
        case touched = 1
        /// The session was deleted (its rows in the tables went in the same transaction).
        case removed = 2
    }
}
