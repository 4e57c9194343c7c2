import Presentation
import PresentationAPI
import Testing

/// After a failed fsync the server refuses every write until it is restarted: its health
/// checks must say so, or an orchestrator keeps a server up that can change nothing.
@Suite("Health once durable writes have stopped")
struct StoppedWritesHealthTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"

    @Test("/healthz and /readyz answer 503 storage_failed, and /metrics shows the stop")
    func healthFailsWhenWritesStop() throws {
        let journal = HeldJournal()
        let server = try TestServer(
            api: APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret)), journal: journal)
        defer { server.stop() }
        let client = try server.connect()
        #expect(try client.get("/healthz").status == 200)
        #expect(try client.get("/readyz").status == 200)
        #expect(try client.get("/metrics", token: Self.secret).text.contains("presentation_storage_writes_stopped 0"))
        journal.stopped.store(true, ordering: .releasing)
        for path in ["/healthz", "/readyz"] {
            let problem = try client.get(path).expectProblem(503, "storage_failed")
            #expect((problem["detail"] as? String)?.contains("restart") == true, "\(path)")
        }
        #expect(try client.get("/metrics", token: Self.secret).text.contains("presentation_storage_writes_stopped 1"))
    }
}
