import Foundation
import Testing

/// A durable change is answered from the journal's sync thread once its write is on disk: the
/// answer's JSON, written there, recurses once per level of the session's tree. The journal's
/// threads had the stack of `ulimit -s` (glibc's default for a thread started without a size):
/// under a 256 KiB limit, importing a session 1,000 presentations deep, which
/// `--max-presentation-depth 1000` allows and which memory storage answers, crashed the
/// server (SIGSEGV on `session-sync`). They now get a stack of their own size, as the
/// request threads do.
@Suite("Journal thread stack")
struct JournalThreadStackTests {
    @Test("Durable, a session 1,000 presentations deep is imported and changed under a 256 KiB ulimit -s")
    func deepSessionDurableUnderSmallStackLimit() throws {
        let data = DataDirectory()
        let deep = try DeepSessionServer(["--storage", "sqlite", "--data-dir", data.path])
        let (server, client, session) = (deep.server, deep.client, deep.session)
        defer { _ = try? server.terminate() }
        let export = try client.get(session.route("export"), token: session.token)
        #expect(export.status == 200)
        let imported = try? client.post("/v1/sessions/import", bytes: export.body)
        #expect(imported?.status == 201, "body: \(imported?.text.prefix(200) ?? "none, the connection closed")")
        let pushed = try? client.post("push", to: session, json: ["screen": "top"])
        #expect(pushed?.status == 200, "body: \(pushed?.text.prefix(200) ?? "none, the connection closed")")
        #expect(server.process.isRunning)
    }
}
