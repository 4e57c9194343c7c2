import Foundation
import Testing

/// A disk that fails an fsync, met by the real binary: what the server then holds of the
/// last change is unknown, so it answers storage_failed, keeps serving the state before,
/// refuses every write until restarted, says so on its health checks, and its stop exits 1
/// (README, "Storage"; docs/api.md, "Lifetime and storage").
@Suite("A failed flush to disk")
struct FailedFlushTests {
    @Test("A change whose flush fails is storage_failed; writes stop, reads go on, health fails, the stop exits 1")
    func failedFlushStopsWrites() throws {
        let disk = try FailingFlush()
        let data = DataDirectory()
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path], environment: disk.environment,
            accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        let session = try #require(CreatedSession(answer: try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])))
        try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)

        try disk.fail()
        try client.post("push", to: session, json: ["screen": "lost"]).expectProblem(503, "storage_failed")
        // Every later write is refused at once, though the disk might work again.
        try client.post("pop", to: session, json: [:]).expectProblem(503, "storage_failed")
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "storage_failed")
        // Reads answer the state before the failed change.
        #expect(try client.get(session.route(), token: session.token).expectSession(revision: 2).rootPathNames == ["inbox", "detail"])
        try client.get("/healthz").expectProblem(503, "storage_failed")

        #expect(try server.terminate() == 1, "a stop after a failed flush exited as a clean one")
        let last = try #require(server.logLines().last)
        #expect(last["event"] as? String == "stopped")
        #expect(last["level"] as? String == "error", "\(last)")
        #expect((last["reason"] as? String)?.contains("durable writes had stopped") == true, "\(last)")

        // Restarted on a working disk, the server serves the session again, with or without
        // the change whose flush failed (what the disk kept of it is unknown).
        let (restarted, port) = try data.startServer()
        defer { _ = try? restarted.terminate() }
        let revision = try HTTPConnection(port: port).get(session.route(), token: session.token).expectSession().int("revision")
        #expect(revision == 2 || revision == 3, "revision \(String(describing: revision))")
    }
}
