import Foundation
import Testing

/// Reading and writing a session recurses once per level of its tree, on the request threads.
/// Their stack was whatever `ulimit -s` gave: at `--max-presentation-depth 1000`, under a
/// 1 MiB limit, the server crashed (SIGSEGV) on an export and import its options allow. The
/// threads now get a stack of their own size.
@Suite("Request thread stack")
struct RequestThreadStackTests {
    @Test("A session at --max-presentation-depth 1000 exports and imports under a 256 KiB ulimit -s")
    func deepSessionUnderSmallStackLimit() throws {
        let deep = try DeepSessionServer()
        let (server, client, session) = (deep.server, deep.client, deep.session)
        defer { _ = try? server.terminate() }
        let export = try client.get(session.route("export"), token: session.token)
        #expect(export.status == 200)
        let imported = try client.post("/v1/sessions/import", bytes: export.body)
        #expect(imported.status == 201, "body: \(imported.text.prefix(200))")
        #expect(server.process.isRunning)
    }
}
