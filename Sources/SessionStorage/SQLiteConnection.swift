import CSQLite

/// One connection to an SQLite database file (`sqlite3 *`), used by one thread at a time.
///
/// With `SQLiteStatement`, the only code in this module that calls SQLite's C API.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens (creating when missing) the database at `path` (`sqlite3_open_v2`).
    init(path: String) throws(SQLiteError) {
        var opened: OpaquePointer?
        // No SQLite mutex: the journal hands the connection to one thread at a time.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status & 0xFF, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        // v2: closes once the last statement is finalized, whatever the order of deinits.
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that returns no rows (`sqlite3_exec`); several statements may be given at once.
    func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard status == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: status & 0xFF, message: message)
        }
    }

    /// A prepared statement (`sqlite3_prepare_v3`), kept for repeated use.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// The first column of the rows of a query, as text: for pragmas such as `quick_check`.
    func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var texts: [String] = []
        while try statement.step() {
            texts.append(statement.text(0) ?? "")
        }
        return texts
    }

    /// True outside a transaction: after a failed COMMIT, tells whether SQLite already rolled back.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Heap SQLite holds in this process, all connections together (`sqlite3_memory_used`, which
    /// is thread-safe): mostly the page cache, bounded by `cache_size` per connection.
    static var heapBytes: Int { Int(sqlite3_memory_used()) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// The write-ahead log of the main database, where SQLite keeps it: beside the file it
    /// opened, which is the target when the path given was a symbolic link.
    var walPath: String? {
        guard let name = sqlite3_db_filename(handle, "main"), let wal = sqlite3_filename_wal(name) else { return nil }
        return String(cString: wal)
    }

    /// The first `count` bytes (at most a region's, 32 KiB) of the main database's log index
    /// (`-shm`) as SQLite has it mapped; nil when it has none mapped. Read through SQLite, not
    /// from the file: closing a descriptor of the file, however briefly open, releases every
    /// POSIX lock this process holds on it, SQLite's too. Its read lock on the index's dead-man
    /// byte tells another process (the `sqlite3` shell README has make a backup while the
    /// server runs) that the index is in use; without it, that process truncates the index and
    /// rebuilds it under this one, which has it mapped.
    func walIndex(count: Int) -> [UInt8]? {
        let regionSize: Int32 = 32_768
        guard count <= regionSize else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let methods = file?.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // Not extended (0): a region SQLite has not mapped is not made here.
        guard map(file, 0, regionSize, 0, &region) == SQLITE_OK, let region else { return nil }
        return Array(UnsafeRawBufferPointer(start: region, count: count))
    }

    /// The error for a failed call's `status`, with the connection's message.
    func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xFF, message: lastMessage)
    }
}
