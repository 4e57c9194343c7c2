import Foundation
import Testing

/// A long poll whose time runs out is answered from a libdispatch thread (`SessionWaiter`'s
/// timer), whose stack is `ulimit -s`, not the request threads' 8 MiB: with
/// `include=session` that answer writes the session's JSON, which recurses once per level of
/// its tree, and a session 1,000 presentations deep crashed the server (SIGSEGV) under a
/// 256 KiB limit. The answer is now written on a thread with the request threads' stack.
@Suite("Long poll stack")
struct LongPollStackTests {
    @Test("A wait for events with include=session runs out on a session 1,000 deep under a 256 KiB ulimit -s")
    func timedOutWaitOnDeepSessionUnderSmallStackLimit() throws {
        let deep = try DeepSessionServer()
        let (server, client, session) = (deep.server, deep.client, deep.session)
        defer { _ = try? server.terminate() }
        // Revision 1 and ten batches of 100: nothing after revision 11 comes, so the wait runs out.
        let waited = try? client.get(session.route("events?after=11&wait=1&include=session"), token: session.token)
        #expect(waited?.status == 200, "body: \(waited?.text.prefix(200) ?? "none, the connection closed")")
        #expect(waited?.text.contains(#""session":"#) == true)
        #expect(server.process.isRunning)
    }
}
