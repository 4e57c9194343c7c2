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
}
