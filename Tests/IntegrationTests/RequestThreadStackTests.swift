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
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--max-presentation-depth", "1000"], through: ["prlimit", "--stack=262144"])
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        let session = try client.createSession()
        try client.presentSheets(1000, on: session)
        let export = try client.get(session.route("export"), token: session.token)
        #expect(export.status == 200)
        let imported = try client.post("/v1/sessions/import", bytes: export.body)
        #expect(imported.status == 201, "body: \(imported.text.prefix(200))")
        #expect(server.process.isRunning)
    }
}
