import Foundation
import Testing

@testable import SessionStorage

@Suite("Cutting off a failed commit's frames")
struct FailedCommitFramesTests {
    #if os(Linux)
        /// Closing any descriptor of a file releases every POSIX lock the process holds on it,
        /// SQLite's among them: its read lock on the index's dead-man byte tells another process
        /// (the `sqlite3` shell README has make a backup while the server runs) that the index is
        /// in use. Without it, that process takes the index for abandoned, truncates it and
        /// rebuilds it under the server, which has it mapped.
        @Test("SQLite's locks on the log's index are held as before")
        func keepsIndexLocks() throws {
            let root = StorageFixture.directory()
            defer { StorageFixture.remove(root) }
            let connection = try SQLiteConnection(path: root + "/sessions.sqlite3")
            _ = try connection.texts("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            let index = root + "/sessions.sqlite3-shm"
            let before = Self.locks(on: index)
            #expect(!before.isEmpty, "SQLite holds no lock on the index: nothing to check")
            #expect(FailedCommitFrames.cutOff(of: connection) == 0)
            #expect(Self.locks(on: index) == before)
            // The index read is the file's (read last: reading the file drops the locks).
            let mapped = try #require(connection.walIndex(count: 96))
            #expect(mapped == Array(try Data(contentsOf: URL(fileURLWithPath: index)).prefix(96)))
            let log = try Data(contentsOf: URL(fileURLWithPath: root + "/sessions.sqlite3-wal"))
            #expect(WALCheck.committedFrames(index: mapped, salts: Array(log[16..<24])) != nil)
        }

        /// This process's POSIX locks on the file at `path`, as `/proc/locks` lists them ("READ 128-128").
        private static func locks(on path: String) -> [String] {
            var status = stat()
            guard stat(path, &status) == 0, let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
                return []
            }
            let inode = ":\(status.st_ino)"
            return table.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count == 8, fields[1] == "POSIX", fields[4] == "\(getpid())", fields[5].hasSuffix(inode) else {
                    return nil
                }
                return "\(fields[3]) \(fields[6])-\(fields[7])"
            }.sorted()
        }
    #endif
}
