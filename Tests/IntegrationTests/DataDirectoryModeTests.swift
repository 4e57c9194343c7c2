import Foundation
import Testing

/// Sessions hold what users typed (params, results, an alert's `secure` fields): a data
/// directory the server creates must not let every local user read the session database.
@Suite("The data directory's permissions")
struct DataDirectoryModeTests {
    @Test("A data directory the server creates is its user's alone")
    func createdPrivate() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("data").path
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", directory], accessLog: false)
        _ = try server.port()
        #expect(try server.terminate() == 0)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "data directory mode \(String(mode, radix: 8)): other users can read sessions.sqlite3")
    }

    /// README tells a bind mount's owner to `chown` a directory they made: its mode is theirs
    /// (0755 by default), so the files in it must keep other users out themselves.
    @Test("The database, its log and the lock file are their user's alone, in a directory others may read")
    func filesPrivate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mode-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", directory], accessLog: false)
        _ = try HTTPConnection(port: UInt16(try server.port())).createSession()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(Set(["sessions.sqlite3", "sessions.sqlite3-wal", "sessions.lock"]).isSubset(of: Set(files)), "\(files)")
        for file in files {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(file) mode \(String(mode, radix: 8)): other users can read it")
        }
        #expect(try server.terminate() == 0)
    }
}
