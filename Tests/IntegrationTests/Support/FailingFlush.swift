import Foundation
import Testing

/// A disk whose flushes fail on demand, for the real binary: a library loaded ahead of libc
/// (`LD_PRELOAD`) whose `fsync` and `fdatasync` fail with EIO while a flag file exists, and
/// call libc's otherwise. The server's sync thread and SQLite reach both through libc, so the
/// server meets the failure where a failing disk would put it.
///
/// Built at the test's start with the C compiler that ships with Swift (`clang`, on PATH
/// beside `swift`), into a directory of its own that goes with this value.
final class FailingFlush {
    let directory: String
    /// While this file exists, every flush fails.
    var flag: String { directory + "/fail" }
    private var library: String { directory + "/libfailingflush.so" }

    private static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <stdlib.h>
        #include <unistd.h>

        static int failing(void) {
            const char *flag = getenv("FAILING_FLUSH_FLAG");
            return flag != NULL && access(flag, F_OK) == 0;
        }

        int fsync(int descriptor) {
            if (failing()) { errno = EIO; return -1; }
            int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
            return real(descriptor);
        }

        int fdatasync(int descriptor) {
            if (failing()) { errno = EIO; return -1; }
            int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
            return real(descriptor);
        }
        """

    init() throws {
        directory = NSTemporaryDirectory() + "failing-flush-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sourcePath = directory + "/failingflush.c"
        try Self.source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: try #require(Self.compiler(), "no clang or cc on PATH"))
        compiler.arguments = ["-shared", "-fPIC", "-O1", "-o", library, sourcePath, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "clang could not build the failing-flush library")
    }

    /// Swift's toolchain ships clang beside `swift`; else the system's cc.
    private static func compiler() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["clang", "cc"] {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The environment that loads the library into the server. The sanitizers' builds link
    /// their runtime statically, so another library ahead of libc is allowed.
    var environment: [String: String] {
        ["LD_PRELOAD": library, "FAILING_FLUSH_FLAG": flag, "ASAN_OPTIONS": "verify_asan_link_order=0"]
    }

    /// From now on, every flush fails.
    func fail() throws {
        try #require(FileManager.default.createFile(atPath: flag, contents: nil))
    }
}
