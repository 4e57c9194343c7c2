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

    /// Opens the log at `path`, the one SQLite writes (`SQLiteConnection.walPath`: beside the
    /// file SQLite opened, a symbolic link followed); nil, with `errno` set, when there is none.
    init?(path: String) {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        // Checked before every property is set: a failed init then runs no `deinit`, whose
        // close(-1) would set `errno` to EBADF before the caller reports it.
        guard opened >= 0 else { return nil }
        self.path = path
        descriptor = opened
    }

    deinit {
        close(descriptor)
    }

    /// Flushes the log's data to the disk: 0, or the `errno` of a failure.
    func sync() -> Int32 {
        fdatasync(descriptor) == 0 ? 0 : errno
    }
}
