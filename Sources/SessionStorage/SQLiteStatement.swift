import CSQLite
import Presentation

/// A prepared statement (`sqlite3_stmt *`): bind, step, read columns, reset for the next use.
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// Kept so the connection outlives its statements.
    private let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds parameters 1, 2, ... in order, after clearing the last use (`sqlite3_reset`).
    func bind(_ values: SQLiteValue...) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let integer):
                status = sqlite3_bind_int64(handle, index, Int64(integer))
            case .real(let real):
                status = sqlite3_bind_double(handle, index, real)
            case .text(var text):
                // A native string lends its own bytes (SQLite copies them); no array in between.
                status = text.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        CSQLite_bind_text(handle, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .sessionID(let id):
                // Spelled on the stack: `rawValue` is a String of 22 characters, one allocation
                // more on every durable write (SQLite copies the text either way).
                status = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SessionID.length) { spelling in
                    id.spell(into: spelling)
                    return spelling.withMemoryRebound(to: CChar.self) {
                        CSQLite_bind_text(handle, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .blob(let bytes):
                // A zero-length blob needs a non-null pointer, or SQLite stores NULL.
                status = bytes.withUnsafeBytes { buffer in
                    CSQLite_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count))
                }
            }
            guard status == SQLITE_OK else { throw connection.error(status) }
        }
    }

    /// Runs to the next row: true when there is one, false when done (`sqlite3_step`).
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it so it holds no lock.
    func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        try step()
    }

    func reset() {
        sqlite3_reset(handle)
    }

    func integer(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    func real(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    func text(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }

    /// The column's bytes, copied out before the next step invalidates them.
    func blob(_ column: Int32) -> [UInt8] {
        // Pointer first, then size: the order SQLite documents.
        let bytes = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column's storage class is INTEGER or REAL: ask before reading it as a number,
    /// which would read text, a blob or NULL as 0.
    func isNumber(_ column: Int32) -> Bool {
        let type = sqlite3_column_type(handle, column)
        return type == SQLITE_INTEGER || type == SQLITE_FLOAT
    }

    /// The column's storage class is NULL.
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }
}

/// A value to bind to a statement parameter.
enum SQLiteValue {
    case integer(Int)
    case real(Double)
    case text(String)
    /// A session id, bound as the text of its `rawValue`.
    case sessionID(SessionID)
    case blob([UInt8])
}
