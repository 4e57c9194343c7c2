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
    /// The database file the log belongs to: the log's path without `-wal`, as SQLite names it.
    private let databasePath: String
    /// The files the two names held when opened (device, inode).
    private let log: FileIdentity
    private let database: FileIdentity

    /// Opens the log at `path`, the one SQLite writes (`SQLiteConnection.walPath`: beside the
    /// file SQLite opened, a symbolic link followed); nil, with `errno` set, when there is none.
    init?(path: String) {
        let databasePath = path.hasSuffix("-wal") ? String(path.dropLast(4)) : path
        guard let database = FileIdentity(path: databasePath) else { return nil }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        // Checked before every property is set: a failed init then runs no `deinit`, whose
        // close(-1) would set `errno` to EBADF before the caller reports it.
        guard opened >= 0 else { return nil }
        guard let log = FileIdentity(descriptor: opened) else {
            let failure = errno
            close(opened)
            errno = failure
            return nil
        }
        self.path = path
        self.databasePath = databasePath
        self.log = log
        self.database = database
        descriptor = opened
    }

    deinit {
        close(descriptor)
    }

    /// Flushes the log's data to the disk: 0, or the `errno` of a failure.
    ///
    /// ENOENT too when the log or the database no longer has its name (the data directory
    /// removed, the files moved away or replaced while the server runs): SQLite goes on writing
    /// to the files it holds open, the flush succeeds, and a restart reads the names, which
    /// hold none of it. A change acknowledged then would be lost, so it is refused as after a
    /// failed flush, and writes stop until a restart (two `stat`s a flush, against its
    /// milliseconds).
    func sync() -> Int32 {
        guard fdatasync(descriptor) == 0 else { return errno }
        guard FileIdentity(path: path) == log, FileIdentity(path: databasePath) == database else { return ENOENT }
        return 0
    }
}

/// A file as the file system knows it, whatever its name: its device and inode.
private struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The file `path` names now; nil when it names none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
