import Foundation
import Testing

/// Start-up decodes each stored session, recursing once per level of its tree. It did so on
/// the main thread (or libdispatch's, for many sessions), whose stack is whatever `ulimit -s`
/// gives: a session the server had accepted and made durable at `--max-presentation-depth
/// 1000` crashed (SIGSEGV) every later start under a 256 KiB limit (a debug build needed more
/// than 2 MiB), so the data directory could not be served at all. Restoring now runs on
/// threads with a stack of their own size, as the request threads do.
@Suite("Restore thread stack")
struct RestoreThreadStackTests {
    @Test("A session 1,000 presentations deep is written and restored under a 256 KiB ulimit -s")
    func deepSessionRestoredUnderSmallStackLimit() throws {
        let data = DataDirectory()
        let storage = ["--storage", "sqlite", "--data-dir", data.path]
        let deep = try DeepSessionServer(storage)
        let (first, client, session) = (deep.server, deep.client, deep.session)
        let revision = try Self.revision(of: session, from: client)
        // Killed, so that start-up reads the session back from the log as well as folds it.
        _ = try first.terminate(with: SIGKILL)

        let second = try ServerProcess.start(
            arguments: DeepSessionServer.arguments + storage, through: DeepSessionServer.smallStack)
        defer { _ = try? second.terminate() }
        let port = try #require(try? second.port(), "the server did not start again: \(second.errorOutput.suffix(300))")
        let restarted = try HTTPConnection(port: UInt16(port))
        #expect(try Self.revision(of: session, from: restarted) == revision)
        #expect(try restarted.get(session.route("export"), token: session.token).status == 200)
        #expect(second.process.isRunning)
    }

    /// The session's revision, read from the text: Foundation's parser refuses JSON nested this deep.
    static func revision(of session: CreatedSession, from client: HTTPConnection) throws -> Int? {
        let text = try client.get(session.route(), token: session.token).text
        guard let match = text.firstMatch(of: /"revision":([0-9]+)/) else { return nil }
        return Int(match.1)
    }
}
