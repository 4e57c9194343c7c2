#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system calls `StaticFiles` and `AvailableProcessors` need, and the only place
/// they touch libc's files.
enum FileSystem {
    /// What `fstat` says about an open file, enough to tell when it changed.
    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
        /// The status change time too: a file rewritten in place at its old size and given back
        /// its old modification time (`cp -p`, `tar x`, a reproducible build's fixed times) kept
        /// its size, inode and mtime, and was served stale; no one can set this one back.
        let changedSeconds: Int
        let changedNanoseconds: Int
        let isRegularFile: Bool

        init(_ information: stat) {
            #if canImport(Darwin)
                let modified = information.st_mtimespec
                let changed = information.st_ctimespec
            #else
                let modified = information.st_mtim
                let changed = information.st_ctim
            #endif
            device = UInt64(information.st_dev)
            inode = UInt64(information.st_ino)
            size = Int(information.st_size)
            modifiedSeconds = Int(modified.tv_sec)
            modifiedNanoseconds = Int(modified.tv_nsec)
            changedSeconds = Int(changed.tv_sec)
            changedNanoseconds = Int(changed.tv_nsec)
            isRegularFile = information.st_mode & S_IFMT == S_IFREG
        }
    }

    /// What `lstat` says of `path` (of a link itself, not what it leads to). It needs no
    /// descriptor, so a file already read can be known unchanged when none is left.
    static func identity(of path: String) throws(Failure) -> Identity {
        var information = stat()
        guard lstat(path, &information) == 0 else { throw Failure(errno: errno) }
        return Identity(information)
    }

    /// Why a path could not be resolved, opened or read.
    enum Failure: Error, Hashable, Sendable {
        /// Nothing there to read: no such file, a link where none is followed, no permission.
        case absent
        /// Something there that could not be read now: the process is out of descriptors or
        /// memory, the read failed, or the file changed while it was read. Trying again may work.
        case unavailable

        /// The failure `errno` names, for a call that just failed.
        init(errno code: Int32) {
            switch code {
            case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG, EACCES, EPERM, ENXIO, EISDIR: self = .absent
            default: self = .unavailable
            }
        }
    }

    /// `realpath`: the absolute path with every `.`, `..` and symbolic link resolved.
    static func resolve(_ path: String) throws(Failure) -> String {
        guard let resolved = realpath(path, nil) else { throw Failure(errno: errno) }
        // realpath allocated the buffer with malloc; it is ours to free.
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The text of a small file such as those under /proc and /sys (whose size `fstat` gives
    /// as 0, so read until the end), at most `limit` bytes; nil when it cannot be read.
    static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return readUpTo(limit, from: descriptor).map { String(decoding: $0, as: UTF8.self) }
    }

    static func isDirectory(_ path: String) -> Bool {
        var information = stat()
        guard stat(path, &information) == 0 else { return false }
        return information.st_mode & S_IFMT == S_IFDIR
    }

    /// A file opened for reading, closed when the value goes away.
    final class OpenFile {
        private let descriptor: Int32
        let identity: Identity

        /// `open` with `O_NOFOLLOW`: `absent` when the path is missing, unreadable or a link;
        /// `unavailable` when it cannot be opened now (no descriptor left).
        /// `O_NONBLOCK` because what a path names is known only once it is open: a FIFO opened
        /// without it waits for a writer, holding the worker thread that asked (every one, a
        /// request each). Reads of a regular file, the only kind read from here, ignore it.
        init(path: String) throws(Failure) {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw Failure(errno: errno) }
            var information = stat()
            guard fstat(descriptor, &information) == 0 else {
                close(descriptor)
                throw .unavailable
            }
            self.descriptor = descriptor
            identity = Identity(information)
        }

        deinit {
            close(descriptor)
        }

        /// The whole content; `unavailable` when reading fails or the file no longer has the
        /// size `fstat` gave (it changed while we read, so the caller's identity would be wrong).
        func readAll(expected size: Int) throws(Failure) -> [UInt8] {
            // One byte more than expected, to tell a file that grew.
            guard let bytes = readUpTo(size + 1, from: descriptor), bytes.count == size else { throw .unavailable }
            return bytes
        }
    }

    /// Up to `limit` bytes from `descriptor`, until its end; nil when a read fails.
    private static func readUpTo(_ limit: Int, from descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let read = bytes.withUnsafeMutableBytes { buffer in
                readBytes(descriptor, UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
            }
            if read < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if read == 0 { break }
            count += read
        }
        bytes.removeLast(limit - count)
        return bytes
    }
}

// At file scope, where `read` is libc's and not shadowed by a method.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
