import Foundation
import Presentation

/// The `sessions` table: the SQL that creates, reads and writes it, on one connection used by one thread at a time.
///
/// One row per session: the id, the encoded session (`SessionCodec`), and its lease, kept in
/// columns so that expired rows can be found without decoding.
final class SessionTable {
    let connection: SQLiteConnection
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let upsert: SQLiteStatement
    private let delete: SQLiteStatement
    private let touch: SQLiteStatement
    /// The encoded size of each stored session, for `storedBytes`; changed only after a commit.
    private(set) var sizes: [SessionID: Int] = [:]
    private(set) var storedBytes = 0

    /// Marks our files, so that another program's SQLite database is not taken for one.
    static let applicationID = 0x5053_5331  // "PSS1"
    static let schemaVersion = 1

    static let schema = """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            body BLOB NOT NULL,
            last_access REAL NOT NULL,
            ttl INTEGER NOT NULL
        );
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(schemaVersion);
        """

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

    /// Notes the size of a session read at start-up.
    func noteLoaded(_ id: SessionID, bytes: Int) {
        sizes[id] = bytes
        storedBytes += bytes
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
                case .save(let id, let body, let lease):
                    try upsert.bind(
                        .text(id.rawValue), .blob(body), .real(lease.lastAccess.timeIntervalSince1970),
                        .integer(lease.timeToLive))
                    try upsert.run()
                case .remove(let ids):
                    for id in ids {
                        try delete.bind(.text(id.rawValue))
                        try delete.run()
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

    private func account(_ write: JournalWrite) {
        switch write {
        case .save(let id, let body, _):
            storedBytes += body.count - (sizes.updateValue(body.count, forKey: id) ?? 0)
        case .remove(let ids):
            for id in ids {
                storedBytes -= sizes.removeValue(forKey: id) ?? 0
            }
        case .touch:
            break
        }
    }
}
