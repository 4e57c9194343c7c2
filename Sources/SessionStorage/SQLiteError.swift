import CSQLite
import Presentation

/// A failed SQLite call: its primary result code and SQLite's own message.
struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_FULL`, `SQLITE_CORRUPT`, ...), extended bits removed.
    let code: Int32
    let message: String

    var description: String { "\(message) (SQLite code \(code))" }

    /// The disk or the database's size limit is full.
    var isFull: Bool { code == SQLITE_FULL }

    /// SQLite found the file is not a sound database.
    var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// What the store reports to a client: a full disk, or storage that failed otherwise.
    var presentationError: PresentationError {
        isFull ? .storageFull : .storageFailed(message)
    }
}
