import Foundation
import Testing

/// SQLite keeps no checksum of its pages (only its write-ahead log has them), so a bit that
/// turns over in the database file, or in a copy of it, reaches the server's own bytes: a
/// screen named "inbox" that came back as "Inbox" was served as a different session, with no
/// word. Each stored row now carries a checksum, and a row that fails it stops start-up.
@Suite("Checksums of stored rows")
struct StoredChecksumTests {
    /// Turns over one bit (ASCII case) of the first byte of every copy of `needle` in `path`, and
    /// returns how many there were. Every copy: a page SQLite freed (log rows cut after a fold)
    /// may still hold old ones, and which copy is the live row's is SQLite's business.
    static func flipCase(of needle: String, in path: String) throws -> Int {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let pattern = Array(needle.utf8)
        var found = 0
        var index = 0
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], Array(bytes[index..<index + pattern.count]) == pattern {
                bytes[index] ^= 0x20
                found += 1
                index += pattern.count
            } else {
                index += 1
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return found
    }

    /// A few sessions, one of them (returned) with a screen named `body-needle` in its tree and
    /// a state named `chunk-needle` only in its history; stopped cleanly, so every row is folded
    /// into the tables and the file holds everything.
    static func stoppedWithSessions(_ data: DataDirectory) throws -> CreatedSession {
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        var marked: CreatedSession?
        for index in 0..<3 {
            let session = try client.createSession()
            if index == 1 {
                #expect(try client.post("push", to: session, json: ["screen": "body-needle"]).status == 200)
                #expect(try client.post("set-state", to: session, json: ["state": "chunk-needle"]).status == 200)
                #expect(try client.post("set-state", to: session, json: ["state": "plain"]).status == 200)
                marked = session
            } else {
                #expect(try client.post("push", to: session, json: ["screen": "next"]).status == 200)
            }
        }
        #expect(try server.terminate() == 0)
        return try #require(marked)
    }

    /// Expects start-up to refuse, naming the file, the table, the session and the checksum.
    static func expectRefusal(
        _ data: DataDirectory, table: String, session: CreatedSession?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let refusal = try data.refusal()
        #expect(refusal.status == 1, "the server must not start on a damaged row", sourceLocation: sourceLocation)
        for part in [data.databasePath, "is corrupt", table, "checksum"] + (session.map { [$0.id] } ?? []) {
            #expect(refusal.errors.contains(part), "\(part): \(refusal.errors)", sourceLocation: sourceLocation)
        }
    }

    @Test("A bit turned over in a session's row stops start-up naming the file, the sessions table and the session")
    func damagedSessionRow() throws {
        let data = DataDirectory()
        let session = try Self.stoppedWithSessions(data)
        #expect(try Self.flipCase(of: "body-needle", in: data.databasePath) >= 1)
        try Self.expectRefusal(data, table: "sessions table", session: session)
    }

    @Test("A bit turned over in a chunk of events stops start-up naming the file, the event_chunks table and the session")
    func damagedChunk() throws {
        let data = DataDirectory()
        let session = try Self.stoppedWithSessions(data)
        #expect(try Self.flipCase(of: "chunk-needle", in: data.databasePath) >= 1)
        try Self.expectRefusal(data, table: "event_chunks table", session: session)
    }

    /// The README's backup (`sqlite3 ... "VACUUM INTO ..."`, while the server runs) holds the log's
    /// rows, changes not yet folded into the tables; restored as the README says, with one
    /// bit of it damaged, it is refused; undamaged, it starts with every session.
    @Test(
        "A bit turned over in a log row of a restored backup stops start-up naming the file, the log table and the session",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs the sqlite3 shell"))
    func damagedLogRowInBackup() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        var marked: CreatedSession?
        for index in 0..<3 {
            let session = try client.createSession()
            #expect(try client.post("push", to: session, json: ["screen": index == 1 ? "log-needle" : "next"]).status == 200)
            if index == 1 { marked = session }
        }
        let session = try #require(marked)
        let backup = data.path + "/backup.sqlite3"
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [data.databasePath, "VACUUM INTO '\(backup)'"]
        try shell.run()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0, "the backup was made")
        #expect(try server.terminate() == 0)
        // Restored as the README says: the server stopped, its log and index removed, the copy in.
        let manager = FileManager.default
        func restore() throws {
            for path in [data.databasePath, data.databasePath + "-wal", data.databasePath + "-shm"] {
                try? manager.removeItem(atPath: path)
            }
            try manager.copyItem(atPath: backup, toPath: data.databasePath)
        }
        try restore()
        #expect(try Self.flipCase(of: "log-needle", in: data.databasePath) >= 1)
        try Self.expectRefusal(data, table: "log table", session: session)

        // The same backup undamaged starts, with the change that was only in the log.
        try restore()
        guard let (restored, newPort) = data.restartServer(after: "the undamaged backup was restored") else { return }
        let body = try HTTPConnection(port: newPort).fetch(session)
        #expect(body.rootPathNames == ["inbox", "log-needle"])
        #expect(try restored.terminate() == 0)
    }
}
