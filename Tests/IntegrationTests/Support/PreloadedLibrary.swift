import Foundation
import Testing

/// A C library built for one test and loaded into the real binary ahead of the libraries it
/// links (`LD_PRELOAD`): its functions stand in for theirs of the same name, and reach the
/// real ones through `dlsym(RTLD_NEXT, …)`. For failures a test cannot bring about otherwise:
/// a failing disk, a library out of memory.
///
/// Built with the C compiler that ships with Swift (`clang`, on PATH beside `swift`), into a
/// directory of its own that goes with this value; flag files the library looks for live there.
final class PreloadedLibrary: Sendable {
    let directory: String
    let path: String

    init(name: String, source: String) throws {
        directory = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
        path = directory + "/lib\(name).so"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sourcePath = directory + "/\(name).c"
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: try #require(Self.compiler(), "no clang or cc on PATH"))
        compiler.arguments = ["-shared", "-fPIC", "-O1", "-o", path, sourcePath, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "the \(name) library did not build")
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

    /// The environment that loads the library into the server, with `more`. The sanitizers'
    /// builds link their runtime statically, so another library ahead of libc is allowed.
    ///
    /// `LD_PRELOAD` names the library alone and `LD_LIBRARY_PATH` its directory: the loader
    /// splits `LD_PRELOAD` at spaces, so a full path under a TMPDIR with one in it
    /// (`/tmp/x y/...`) was preloaded as `/tmp/x` and `y/...`, never loaded, and every failure
    /// the library brings about silently did not happen. `LD_LIBRARY_PATH` is split at colons only.
    func environment(_ more: [String: String]) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? ""
        return more.merging([
            "LD_PRELOAD": URL(fileURLWithPath: path).lastPathComponent, "LD_LIBRARY_PATH": directory + inherited,
            "ASAN_OPTIONS": "verify_asan_link_order=0",
        ]) { $1 }
    }
}
