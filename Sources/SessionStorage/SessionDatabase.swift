#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
public import Presentation

/// Opens the data directory's session database, checks it, and reads back every live session.
public enum SessionDatabase {
    /// The database file inside the data directory.
    public static let fileName = "sessions.sqlite3"

    /// What start-up found: the journal to write through, and the sessions to serve.
    public struct Recovery: Sendable {
        public let journal: SQLiteJournal
        /// Every live session, with its lease, exactly as last acknowledged, and the bytes it
        /// takes in the file (for `InMemorySessionStore.restore`).
        public let sessions: [(session: Session, lease: SessionLease, storedBytes: Int)]
        /// Sessions found expired, and removed from the file.
        public let expired: Int
        /// Bytes of the live sessions' stored form.
        public let storedBytes: Int
        public let duration: Duration
    }

    /// Opens (creating when missing) `directory` and its database, refusing a damaged or foreign
    /// file, and loads every session whose lease has not run out by `now`.
    ///
    /// `limits` gives how much history to keep; sessions are restored without the tree limits
    /// (stack length, presentation depth), so lowering those never strands a stored session.
    /// `maxPageCount` caps the file (SQLite pages of 4 KiB): for tests of a full disk.
    /// `foldThreshold` is the bytes of log past which sessions are folded into their rows.
    /// `cores` is how many the sessions are decoded on at once (the executable passes those
    /// its affinity and CPU quota allow; Foundation's count here is of the cores online).
    public static func open(
        directory: String, limits: Limits, now: Date, maxPageCount: Int? = nil,
        foldThreshold: Int = defaultFoldThreshold, cores: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws(StorageOpenError) -> Recovery {
        try open(
            directory: directory, limits: limits, now: now, maxPageCount: maxPageCount, foldThreshold: foldThreshold,
            cores: cores, sync: { $0.sync() })
    }

    /// The same, with `sync` in place of the log's fsync and `directorySync` in place of a
    /// directory's: for tests of a slow or failing disk.
    static func open(
        directory: String, limits: Limits, now: Date, maxPageCount: Int? = nil,
        foldThreshold: Int = defaultFoldThreshold, cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        sync: @escaping @Sendable (WALFile) -> Int32,
        directorySync: (String) -> Int32 = syncDirectory
    ) throws(StorageOpenError) -> Recovery {
        let started = ContinuousClock.now
        let path = filePath(fileName, in: directory)
        if let failure = createDirectory(directory, sync: directorySync) {
            throw .cannotOpen(path: path, reason: "cannot create the data directory: \(failure)")
        }
        // Before the database is read: what this server loads must not be another's to change.
        let lock = try DataDirectoryLock(directory: directory, databasePath: path)
        // Before SQLite opens the file, whose recovery would read past such damage without a word.
        let resolved = realPath(of: path) ?? path
        let logPath = resolved + "-wal"
        if let damage = WALCheck.damage(ofLogAt: logPath, indexAt: resolved + "-shm") {
            throw .damagedLog(path: logPath, details: damage)
        }
        if let frames = WALCheck.framesMissing(logAt: logPath, indexAt: resolved + "-shm") {
            throw .missingLog(path: logPath, frames: frames)
        }
        let table = try openTable(path: path, maxPageCount: maxPageCount, foldThreshold: foldThreshold)
        var restoring = limits
        restoring.maxStackLength = .max
        restoring.maxPresentationDepth = .max
        var sessions: [(session: Session, lease: SessionLease, storedBytes: Int)] = []
        var expired: [SessionID] = []
        do {
            let everyFound = try table.readAll()
            for (found, restored) in zip(everyFound, restoreAll(everyFound, limits: restoring, path: path, cores: cores)) {
                let (session, trimmed) = try restored.get()
                if found.lease.isExpired(at: now) {
                    expired.append(session.id)
                } else {
                    sessions.append((session, found.lease, table.noteLoaded(session, found, trimmed: trimmed)))
                }
            }
            try table.settle(removing: expired)
        } catch let error as StorageOpenError {
            throw error
        } catch let error as SQLiteError {
            throw error.isCorruption
                ? .corrupt(path: path, details: error.description) : .cannotOpen(path: path, reason: error.description)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        guard let wal = WALFile(path: table.connection.walPath ?? path + "-wal") else {
            throw .cannotOpen(path: path, reason: "SQLite's write-ahead log is missing (\(String(cString: strerror(errno))))")
        }
        // The log's fdatasync makes its frames durable, not its name, nor a new file's: the
        // directory holding both (the link's target's, when the file is a symbolic link) is
        // synced once before any write can be acknowledged. SQLite would sync it itself only
        // on a sync of its own, which `synchronous = NORMAL` leaves to us.
        let logDirectory = directoryPart(of: wal.path)
        let synced = directorySync(logDirectory)
        if synced != 0 {
            throw .cannotOpen(path: path, reason: "cannot sync \(logDirectory): \(String(cString: strerror(synced)))")
        }
        let queue = CommitQueue(table: table, sync: { sync(wal) })
        queue.start()
        return Recovery(
            journal: SQLiteJournal(queue: queue, path: path, lock: lock), sessions: sessions, expired: expired.count,
            storedBytes: queue.storedBytes, duration: ContinuousClock.now - started)
    }

    /// WAL pages written between two checkpoints (32 MB of log at 4 KB pages), against SQLite's
    /// default of 1,000. A checkpoint copies each page changed since the last one into the file
    /// once, on the writer's thread, between two commits: changes keep rewriting the same pages
    /// (a session's row, its events' leaf), so the rarer the checkpoint, the fewer copies each
    /// change pays for. Durable push/pop went from 11-13k to 15-17k requests a second
    /// (docs/performance.md, item 32); a restart reads at most this much log back.
    static let walCheckpointPages = 8192

    /// Opens the file, checks it is ours and sound, and sets it up for durable group commits.
    /// Bytes of log rows past which the oldest sessions are folded into their rows (see `SessionLog`).
    /// The larger it is, the more changes a session makes between two folds (each rewrites its
    /// row and adds its events), but the more distinct pages SQLite's checkpoint copies at
    /// once, which the changes queued meanwhile wait for: at 8 MB durable push/pop's p99 went
    /// from 17 to 64 ms, at 4 MB to 24 ms (docs/performance.md, item 39).
    public static let defaultFoldThreshold = 4 << 20

    private static func openTable(
        path: String, maxPageCount: Int?, foldThreshold: Int
    ) throws(StorageOpenError) -> SessionTable {
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA busy_timeout = 5000")
            // The header is read here first: a file that is not a database fails now (SQLITE_NOTADB).
            let applicationID = Int(try connection.texts("PRAGMA application_id").first ?? "") ?? 0
            let version = Int(try connection.texts("PRAGMA user_version").first ?? "") ?? 0
            let tables = try connection.texts("SELECT name FROM sqlite_schema WHERE type = 'table'")
            let isNew = applicationID == 0 && version == 0 && tables.isEmpty
            if !isNew {
                guard applicationID == SessionTable.applicationID else {
                    throw StorageOpenError.unknownFormat(path: path, reason: "its application id is \(applicationID)")
                }
                guard version == SessionTable.schemaVersion || SessionTable.upgrade[version] != nil else {
                    throw StorageOpenError.unknownFormat(path: path, reason: "schema version \(version)")
                }
            }
            let mode = try connection.texts("PRAGMA journal_mode = WAL").first
            guard mode == "wal" else {
                throw StorageOpenError.cannotOpen(path: path, reason: "SQLite would not use WAL mode (got \(mode ?? "nothing"))")
            }
            // NORMAL: in WAL mode a commit then writes the log without an fsync. A 2xx promises the
            // change is on disk: the journal's `SyncQueue` fsyncs the log before any answer.
            try connection.execute("PRAGMA synchronous = NORMAL")
            _ = try connection.texts("PRAGMA wal_autocheckpoint = \(walCheckpointPages)")
            let check = try connection.texts("PRAGMA quick_check")
            guard check == ["ok"] else {
                throw StorageOpenError.corrupt(path: path, details: Self.quickCheckSummary(check))
            }
            if let maxPageCount {
                _ = try connection.texts("PRAGMA max_page_count = \(maxPageCount)")
            }
            if isNew {
                try connection.execute("BEGIN IMMEDIATE; \(SessionTable.schema) COMMIT;")
            } else if let upgrade = SessionTable.upgrade[version] {
                try connection.execute("BEGIN IMMEDIATE; \(upgrade)")
                do {
                    if version == 2 { try SessionTable.repackEvents(connection) }
                    if version == 3 { try SessionTable.repackLog(connection) }
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
            return try SessionTable(connection: connection, foldThreshold: foldThreshold)
        } catch let error as StorageOpenError {
            throw error
        } catch let error as SQLiteError {
            throw error.isCorruption
                ? .corrupt(path: path, details: error.description) : .cannotOpen(path: path, reason: error.description)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// The first three of `quick_check`'s complaints, and how many more: SQLite may return them
    /// as rows or as lines of one row, and a badly damaged file has hundreds, which would make
    /// the refusal a page long.
    static func quickCheckSummary(_ rows: [String]) -> String {
        let complaints = rows.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: true) }
        let shown = complaints.prefix(3).joined(separator: "; ")
        return complaints.count > 3 ? shown + "; and \(complaints.count - 3) more" : shown
    }
}
