/// Why the server cannot start on a data directory: it never serves state it cannot vouch for.
public enum StorageOpenError: Error, CustomStringConvertible {
    /// `path` is the file that could not be opened: the database, or the lock file beside it.
    case cannotOpen(path: String, reason: String)
    /// Another process, most likely a second server, holds the data directory's lock file.
    case inUse(path: String, holder: Int32?)
    /// SQLite's own checks failed: the file is damaged (truncated, overwritten, not a database).
    case corrupt(path: String, details: String)
    /// SQLite's write-ahead log `path` is damaged where SQLite would take it for a torn
    /// write, and would drop the committed transactions after the damage.
    case damagedLog(path: String, details: String)
    /// SQLite's write-ahead log `path` is gone while its index says it held `frames` frames
    /// not yet copied into the database.
    case missingLog(path: String, frames: Int)
    /// A sound SQLite file, but not one this server wrote, or of a newer schema.
    case unknownFormat(path: String, reason: String)
    /// A row SQLite reads fine whose session does not decode or breaks an invariant.
    case invalidSession(path: String, id: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open \(path): \(reason)"
        case .inUse(let path, let holder):
            "the data directory is in use: \(holder.map { "process \($0)" } ?? "another process") holds \(path)."
                + " Two servers on one directory would overwrite each other's sessions; give each its own --data-dir"
        case .corrupt(let path, let details):
            "the session database \(path) is corrupt (\(details)); refusing to start rather than serve wrong state."
                + " Restore it from a backup, or move it away to start empty"
        case .damagedLog(let path, let details):
            "SQLite's write-ahead log \(path) is damaged: \(details); refusing to start rather than serve"
                + " sessions without those writes"
        case .missingLog(let path, let frames):
            "SQLite's write-ahead log \(path) is missing, but its index \(path.dropLast(3))shm says it held"
                + " \(frames) frames not yet copied into the database: refusing to start without the changes they hold."
                + " Put the log back; or, to start from the database file alone (a backup copied in), remove the index too"
        case .unknownFormat(let path, let reason):
            "\(path) is not a session database this server can read: \(reason)"
        case .invalidSession(let path, let id, let reason):
            "the session database \(path) holds session \(id), which cannot be read back (\(reason));"
                + " refusing to start rather than serve wrong state"
        }
    }
}
