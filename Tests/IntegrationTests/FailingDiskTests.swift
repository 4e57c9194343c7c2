import Foundation
import Testing

/// A failing disk, met by the real binary (README, "Storage"; docs/api.md, "Lifetime and
/// storage"). After a failed fsync what the disk holds of the last change is unknown, so the
/// server answers storage_failed, keeps serving the state before, refuses every write until
/// restarted, says so on its health checks, and its stop exits 1. A full disk refuses only
/// the changes that do not fit, and writes go on once there is room again.
@Suite("A failing disk")
struct FailingDiskTests {
    @Test("A change whose flush fails is storage_failed; writes stop, reads go on, health fails, the stop exits 1")
    func failedFlushStopsWrites() throws {
        let data = DataDirectory()
        let disk = try FailingDisk(data: data)
        let (server, client) = try disk.startServer()
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let session = try client.createSessionWithDetail()

        try disk.failFlushes()
        try client.post("push", to: session, json: ["screen": "lost"]).expectProblem(503, "storage_failed")
        // Every later write is refused at once, though the disk might work again.
        try client.post("pop", to: session, json: [:]).expectProblem(503, "storage_failed")
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "storage_failed")
        // Reads answer the state before the failed change.
        #expect(try client.get(session.route(), token: session.token).expectSession(revision: 2).rootPathNames == ["inbox", "detail"])
        try client.get("/healthz").expectProblem(503, "storage_failed")
        // Said in the log when it happened, not first by the stop's last line.
        let said = eventually(within: 10) {
            server.logLines().contains { $0["event"] as? String == "writes_stopped" && $0["level"] as? String == "error" }
        }
        #expect(said, "no writes_stopped line after a failed flush")

        #expect(try server.terminate() == 1, "a stop after a failed flush exited as a clean one")
        server.expectStoppedWithError(naming: "durable writes had stopped")

        // Restarted on a working disk, the server serves the session again, with or without
        // the change whose flush failed (what the disk kept of it is unknown).
        let (restarted, port) = try data.startServer()
        defer { _ = try? restarted.terminate() }
        let revision = try HTTPConnection(port: port).get(session.route(), token: session.token).expectSession().int("revision")
        #expect(revision == 2 || revision == 3, "revision \(String(describing: revision))")
    }

    @Test("A full disk answers 507 storage_full and changes nothing; once there is room, writes go on")
    func fullDiskRefusesThenRecovers() throws {
        let data = DataDirectory()
        let disk = try FailingDisk(data: data)
        let (server, client) = try disk.startServer()
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let session = try client.createSessionWithDetail()

        try disk.fill()
        let refused = try client.post("push", to: session, json: ["screen": "lost"])
        refused.expectProblem(507, "storage_full")
        #expect(refused.header("Retry-After") != nil)
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(507, "storage_full")
        #expect(try client.get(session.route(), token: session.token).expectSession(revision: 2).rootPathNames == ["inbox", "detail"])
        // A full disk is not a failed one: the server stays healthy, for writes to come back.
        #expect(try client.get("/healthz").status == 200)

        try disk.free()
        try client.post("push", to: session, json: ["screen": "more"]).expectSession(revision: 3)
        #expect(try server.terminate() == 0, "\(server.output)")

        let (restarted, port) = try data.startServer()
        defer { _ = try? restarted.terminate() }
        let names = try HTTPConnection(port: port).get(session.route(), token: session.token).expectSession(revision: 3)
            .rootPathNames
        #expect(names == ["inbox", "detail", "more"])
    }
}
