#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite's write-ahead log file, opened a second time for `SyncQueue` to fsync it.
///
/// SQLite does not hand out its descriptors; any descriptor of the file will do, since an fsync
/// flushes the file, not the writes made through one descriptor. The file is SQLite's own for
/// as long as the database stays open (it is deleted only when the last connection closes),
/// and this descriptor lives as long as the queue that syncs through it.
final class WALFile: Sendable {
    private let descriptor: Int32
    let path: String

    /// Opens the log of the open database at `databasePath`; nil when there is none.
    init?(databasePath: String) {
        path = databasePath + "-wal"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit {
        close(descriptor)
    }

    /// Flushes the log's data to the disk: 0, or the `errno` of a failure.
    func sync() -> Int32 {
        fdatasync(descriptor) == 0 ? 0 : errno
    }
}
