import Foundation
import Testing

/// A disk that fills or fails at other moments than a plain change (README, "Storage";
/// docs/api.md, "Lifetime and storage"): while the log is folded and checkpointed, during an
/// expiry sweep, at the stop, at start-up, under a deletion, a token rotation or an import,
/// and under many writers at once. Every change answered 2xx is there after a restart, every
/// change refused is not, and writes go on once there is room again.
@Suite("A disk that fails at other moments")
struct FailingDiskMomentsTests {
    /// The real binary on the failing disk, durable in `data`.
    private static func start(_ data: DataDirectory, _ disk: FailingDisk, _ extra: [String] = []) throws -> (ServerProcess, HTTPConnection) {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path] + extra, environment: disk.environment,
            accessLog: false)
        return (server, try HTTPConnection(port: UInt16(try server.port())))
    }

    /// Polls `condition` until it holds, for up to `ServerProcess.patience`.
    private static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    @Test("An expiry sweep on a full disk frees the sessions' stored bytes once there is room")
    func sweepOnFullDiskFreesStoredBytesLater() throws {
        let data = DataDirectory()
        let disk = try FailingDisk(data: data)
        // One stored session is over the bound, so creations wait on the sweep that frees it;
        // the sweep runs every second.
        let (server, client) = try Self.start(data, disk, ["--max-stored-bytes", "1", "--session-ttl", "4"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"], "ttl": 1]).expectSession(status: 201)
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "storage_limit_reached")

        try disk.fill()
        #expect(Self.eventually { server.logLines().contains { $0["event"] as? String == "sweep_failed" } }, "\(server.output)")
        try disk.free()
        // The expired session's row and bytes go with a later sweep: until then its bytes
        // held the bound, and creations were refused for a session nobody could use.
        let created = try Self.eventually {
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"], "ttl": 3600]).status == 201
        }
        #expect(created, "the expired session's stored bytes were never freed after the failed sweep")
        #expect(try server.terminate() == 0, "\(server.output)")

        // Its row went too: the restart finds no expired session to drop.
        let (restarted, _) = try #require(data.restartServer(after: "a sweep on a full disk"))
        defer { _ = try? restarted.terminate() }
        let storage = restarted.logLines().first { $0["event"] as? String == "storage" }
        #expect(storage?["sessions_expired"] as? Int == 0, "\(restarted.output)")
        #expect(storage?["sessions_loaded"] as? Int == (created ? 1 : 0), "\(restarted.output)")
    }
}
