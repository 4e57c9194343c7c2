import Foundation
import Testing

/// A disk that fails on demand, for the real binary: a library loaded ahead of libc
/// (`PreloadedLibrary`) that makes `fsync` and `fdatasync` fail with EIO while one flag file
/// exists, and writes to files under the data directory fail with ENOSPC (a full disk) while
/// another does (at once, or once a given number of bytes more have been written), writes to
/// the log's index (`-shm`) alone fail so while a third does; it calls
/// libc's otherwise. The server's threads and SQLite reach all of these through libc, so the
/// server meets the failure where a failing disk would put it.
final class FailingDisk: Sendable {
    private let library: PreloadedLibrary
    private let dataDirectory: String
    private var flushFlag: String { library.directory + "/fail-flushes" }
    private var fullFlag: String { library.directory + "/full" }
    private var indexFlag: String { library.directory + "/index-full" }

    private static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/types.h>
        #include <sys/uio.h>
        #include <unistd.h>

        static int flagged(const char *variable) {
            const char *flag = getenv(variable);
            return flag != NULL && access(flag, F_OK) == 0;
        }

        static pthread_mutex_t roomLock = PTHREAD_MUTEX_INITIALIZER;
        /* The bytes still free on a disk that fills, and which filling they belong to. */
        static long long room;
        static char roomGeneration[64];

        /* Whether `count` bytes more meet the full disk. An empty flag: none fit. A flag holding
           "<bytes> <generation>": that many bytes fit, counted from the first write that read
           this generation, then none. */
        static int noRoom(size_t count) {
            int flag = open(getenv("FAILING_DISK_FULL"), O_RDONLY | O_CLOEXEC);
            if (flag < 0) return 0;
            char text[128];
            ssize_t length = read(flag, text, sizeof text - 1);
            close(flag);
            if (length <= 0) return 1;
            text[length] = 0;
            long long bytes;
            char generation[64];
            if (sscanf(text, "%lld %63s", &bytes, generation) != 2) return 1;
            pthread_mutex_lock(&roomLock);
            if (strcmp(generation, roomGeneration) != 0) {
                strcpy(roomGeneration, generation);
                room = bytes;
            }
            int refused = (long long)count > room;
            if (!refused) room -= (long long)count;
            pthread_mutex_unlock(&roomLock);
            return refused;
        }

        /* Whether a write of `count` bytes to this descriptor meets the full disk: a file under
           the data directory. */
        static int full(int descriptor, size_t count) {
            const char *directory = getenv("FAILING_DISK_DATA");
            if (directory == NULL) return 0;
            int whole = flagged("FAILING_DISK_FULL"), index = flagged("FAILING_DISK_INDEX");
            if (!whole && !index) return 0;
            char link[64], path[4096];
            snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
            ssize_t length = readlink(link, path, sizeof path - 1);
            if (length <= 0) return 0;
            path[length] = 0;
            if (strncmp(path, directory, strlen(directory)) != 0) return 0;
            /* The log's index (-shm) grows into new blocks while the log reuses its own. */
            if (index && length > 4 && strcmp(path + length - 4, "-shm") == 0) return 1;
            return whole && noRoom(count);
        }

        #define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

        int fsync(int descriptor) {
            if (flagged("FAILING_DISK_FLUSHES")) { errno = EIO; return -1; }
            return REAL("fsync", int (*)(int))(descriptor);
        }

        int fdatasync(int descriptor) {
            if (flagged("FAILING_DISK_FLUSHES")) { errno = EIO; return -1; }
            return REAL("fdatasync", int (*)(int))(descriptor);
        }

        ssize_t write(int descriptor, const void *bytes, size_t count) {
            if (full(descriptor, count)) { errno = ENOSPC; return -1; }
            return REAL("write", ssize_t (*)(int, const void *, size_t))(descriptor, bytes, count);
        }

        ssize_t pwrite(int descriptor, const void *bytes, size_t count, off_t offset) {
            if (full(descriptor, count)) { errno = ENOSPC; return -1; }
            return REAL("pwrite", ssize_t (*)(int, const void *, size_t, off_t))(descriptor, bytes, count, offset);
        }

        ssize_t pwrite64(int descriptor, const void *bytes, size_t count, off64_t offset) {
            if (full(descriptor, count)) { errno = ENOSPC; return -1; }
            return REAL("pwrite64", ssize_t (*)(int, const void *, size_t, off64_t))(descriptor, bytes, count, offset);
        }

        ssize_t writev(int descriptor, const struct iovec *vectors, int count) {
            size_t total = 0;
            for (int index = 0; index < count; index++) total += vectors[index].iov_len;
            if (full(descriptor, total)) { errno = ENOSPC; return -1; }
            return REAL("writev", ssize_t (*)(int, const struct iovec *, int))(descriptor, vectors, count);
        }

        int fallocate(int descriptor, int mode, off_t offset, off_t length) {
            if (full(descriptor, (size_t)length)) { errno = ENOSPC; return -1; }
            return REAL("fallocate", int (*)(int, int, off_t, off_t))(descriptor, mode, offset, length);
        }

        int fallocate64(int descriptor, int mode, off64_t offset, off64_t length) {
            if (full(descriptor, (size_t)length)) { errno = ENOSPC; return -1; }
            return REAL("fallocate64", int (*)(int, int, off64_t, off64_t))(descriptor, mode, offset, length);
        }
        """

    /// `data`: the directory whose files a full disk refuses writes to.
    init(data: DataDirectory) throws {
        dataDirectory = data.path
        library = try PreloadedLibrary(name: "failingdisk", source: Self.source)
    }

    /// The environment that loads the library into the server.
    var environment: [String: String] {
        library.environment([
            "FAILING_DISK_FLUSHES": flushFlag, "FAILING_DISK_FULL": fullFlag, "FAILING_DISK_INDEX": indexFlag,
            // The path as the kernel gives it back for an open descriptor (symbolic links resolved).
            "FAILING_DISK_DATA": URL(fileURLWithPath: dataDirectory).resolvingSymlinksInPath().path + "/",
        ])
    }

    /// The real binary on this disk, durable in its data directory.
    func startServer(_ extra: [String] = []) throws -> (ServerProcess, HTTPConnection) {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", dataDirectory] + extra, environment: environment,
            accessLog: false)
        return (server, try HTTPConnection(port: UInt16(try server.port())))
    }

    /// The binary started on this disk where it should refuse to start: `exited` when it did (its
    /// output read to the end); else it was listening, and is killed.
    func startExpectingRefusal() throws -> (server: ServerProcess, exited: Bool) {
        let (server, exited) = try ServerProcess.startOrExit(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", dataDirectory], environment: environment)
        if !exited {
            kill(server.process.processIdentifier, SIGKILL)
            // Reaped before the caller reads `terminationStatus`, which traps (ending the whole
            // test process) on a process still running.
            server.process.waitUntilExit()
        }
        return (server, exited)
    }

    /// From now on, every flush fails.
    func failFlushes() throws {
        try #require(FileManager.default.createFile(atPath: flushFlag, contents: nil))
    }

    /// From now on, the data directory's files take no more bytes, until `free()`.
    func fill() throws {
        try #require(FileManager.default.createFile(atPath: fullFlag, contents: nil))
    }

    /// From now on, the data directory's files take `bytes` more, then none, until `free()`:
    /// a disk that fills up during whatever the server writes next.
    func fill(leaving bytes: Int) throws {
        try "\(bytes) \(UUID().uuidString)".write(toFile: fullFlag, atomically: true, encoding: .utf8)
    }

    func free() throws {
        try FileManager.default.removeItem(atPath: fullFlag)
    }

    /// From now on, the log's index (`-shm`) cannot grow, until `freeIndex()`, while the log
    /// itself takes writes: a full disk as met by a log that reuses the blocks it had before
    /// (SQLite writes a log from its start again after each checkpoint) while its index
    /// needs new ones (it grows a region every 4,096 frames).
    func fillIndex() throws {
        try #require(FileManager.default.createFile(atPath: indexFlag, contents: nil))
    }

    func freeIndex() throws {
        try FileManager.default.removeItem(atPath: indexFlag)
    }
}
