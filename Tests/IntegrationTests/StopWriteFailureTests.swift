import Foundation
import Testing

/// A stop that cannot write what the server holds is not a clean stop: the exit status must
/// say so, for a supervisor (systemd, an orchestrator) and for whoever ran `docker stop`.
@Suite("Stopping when storage refuses the last writes")
struct StopWriteFailureTests {
    /// SQLite's write lock of a database in WAL mode: byte 120 of its `-shm` file
    /// (`WAL_WRITE_LOCK`), taken with a POSIX lock as SQLite takes it. Held by another process
    /// (an operator's `sqlite3` shell in a write transaction), every write of the server waits out
    /// its busy timeout (5 s), then fails with "database is locked".
    private static func holdWriteLock(of database: String) throws -> Int32 {
        let descriptor = open(database + "-shm", O_RDWR)
        try #require(descriptor >= 0)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 120
        lock.l_len = 1
        try #require(fcntl(descriptor, F_SETLK, &lock) == 0)
        return descriptor
    }

    @Test("Idle deadlines that cannot be written at the stop make it exit 1, not 0, after saying why")
    func leasesNotWritten() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try HTTPConnection(port: port)
        let session = try #require(CreatedSession(answer: try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])))
        // A read moves the session's idle deadline in memory; the stop is what writes it.
        #expect(try client.get(session.route(), token: session.token).status == 200)

        var lock = try Self.holdWriteLock(of: data.databasePath)
        defer { if lock >= 0 { close(lock) } }
        kill(server.process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains("lease_write_failed"), server.process.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(server.output.contains("lease_write_failed"), "\(server.output)")
        // Let go, so that the rest of the stop (the journal's close) goes as usual.
        close(lock)
        lock = -1

        #expect(try server.waitForExit() == 1, "a stop that lost the idle deadlines it held exited as a clean one")
        #expect(server.process.terminationReason == .exit)
        // The reason is the storage's own message, not the Swift value that carried it.
        let failed = try #require(server.logLines().first { $0["event"] as? String == "lease_write_failed" })
        #expect(failed["reason"] as? String == "database is locked", "\(failed)")
        server.expectStoppedWithError(naming: "idle deadlines")
    }
}
