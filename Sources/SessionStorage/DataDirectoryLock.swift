#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// One server per data directory: an exclusive `flock` on a lock file beside the database,
/// held from start-up until the journal closes (or the process ends, crash included).
///
/// Why: a second server on the same directory would load the same sessions, change its own
/// copies and write them to the one file, so each would serve state the other overwrites, and
/// a restart would read back a mix. SQLite's own locks only keep each transaction whole. They
/// could be held for good (`locking_mode = EXCLUSIVE`), but that would also shut out the
/// `sqlite3 ... ".backup"` that README recommends while the server runs. A lock file of its
/// own shuts out only another server.
///
/// The file holds the holder's process id, so the refusal can name it.
///
/// A database file that is a symbolic link (kept on another volume) is locked where it lives
/// too, in a lock file beside its target: two data directories linking to one database each
/// took their own directory's lock, and both servers opened the one file.
final class DataDirectoryLock: Sendable {
    /// The lock file inside the data directory (and beside a linked database's target).
    static let fileName = "sessions.lock"

    /// The descriptors holding the locks; empty once released.
    private let descriptors: Mutex<[Int32]>
    /// The data directory's lock file.
    let path: String

    /// Takes the lock of `directory`, and of the directory `databasePath` resolves into when that
    /// is another, or throws `.inUse` at once when another process holds either.
    init(directory: String, databasePath: String) throws(StorageOpenError) {
        path = filePath(Self.fileName, in: directory)
        var taken = [try Self.take(path)]
        if let target = resolvedDirectory(ofFileAt: databasePath), realPath(of: directory) != target {
            do {
                taken.append(try Self.take(filePath(Self.fileName, in: target)))
            } catch {
                close(taken[0])
                throw error
            }
        }
        descriptors = Mutex(taken)
    }

    deinit {
        release()
    }

    /// Lets another server take the directory. The file stays: removing it could let a third
    /// server lock a new file of the same name while a second still waits on the old one.
    func release() {
        descriptors.withLock { descriptors in
            for descriptor in descriptors { close(descriptor) }
            descriptors = []
        }
    }

    /// Locks the file at `path` (made if missing), writing this process's id in it: its descriptor.
    private static func take(_ path: String) throws(StorageOpenError) -> Int32 {
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw .cannotOpen(path: path, reason: "cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            let holder = Self.holder(of: opened)
            close(opened)
            if failure == EWOULDBLOCK { throw .inUse(path: path, holder: holder) }
            throw .cannotOpen(path: path, reason: "cannot lock the lock file: \(String(cString: strerror(failure)))")
        }
        // For the message of a server refused later: informative only, so a failure is ignored.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(opened, 0)
        _ = pid.withUnsafeBytes { pwrite(opened, $0.baseAddress, $0.count, 0) }
        return opened
    }

    /// The process id the holder wrote, if it reads as one.
    private static func holder(of descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        // The holder wrote its id and a newline.
        return Int32(String(decoding: bytes.prefix(count).prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self))
    }
}
