import Foundation
import Testing

/// A long poll with `include=session` was answered with a copy of the session's JSON of its
/// own (two, for a moment), held until its client read it: 200 such polls of a 3.6 MB
/// session took the server from 26 MB to 881 MB at one push, from one client's session. The
/// answer now sends the session from the cache that reads use, shared by every answer of
/// that revision.
@Suite("Long polls that include the session")
struct LongPollSessionCopyTests {
    @Test("A hundred unread long-poll answers of a 3 MB session share its JSON: the server grows by far less than a copy each")
    func answersShareTheSession() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--threads", "2"], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        let blob = String(repeating: "x", count: 120_000)
        for _ in 0..<25 {
            #expect(try client.post("push", to: session, json: ["screen": "big", "params": ["blob": blob]]).status == 200)
        }
        let tree = try client.get(session.route(), token: session.token)
        #expect(tree.body.count > 3_000_000)
        let revision = 26

        // Parked, each waiting for the revision after this one; none will read its answer.
        var polls: [HTTPConnection] = []
        for _ in 0..<100 {
            let poll = try HTTPConnection(port: port)
            try poll.write(
                "GET", session.route("events") + "?after=\(revision)&wait=30&include=session",
                headers: [("Authorization", "Bearer \(session.token)")])
            polls.append(poll)
        }
        Thread.sleep(forTimeInterval: 1)
        let before = try ProcessFootprint(of: server.process.processIdentifier)
        _ = try client.post("set-state", to: session, json: ["state": "done"]).expectSession(revision: revision + 1)
        // Every answer is made when the change lands, before the change's own answer.
        Thread.sleep(forTimeInterval: 1)
        let after = try ProcessFootprint(of: server.process.processIdentifier)
        let grownKiB = after.residentKiB - before.residentKiB
        // A copy each would be 300 MB and more.
        #expect(grownKiB < 64 << 10, "grew \(grownKiB) KiB: \(before) → \(after)")

        // The answers are whole: the event, then the session as a read gives it.
        let answer = try polls[0].readResponse(to: "GET", timeout: .seconds(30))
        #expect(answer.status == 200)
        let object = try answer.json()
        #expect(object["revision"] as? Int == revision + 1)
        #expect((object["events"] as? [[String: Any]])?.map { $0["type"] as? String } == ["state-set"])
        let reread = try client.get(session.route(), token: session.token)
        let prefix = Array(#"{"revision":\#(revision + 1),"#.utf8)
        #expect(answer.body.starts(with: prefix))
        #expect(answer.body.suffix(reread.body.count + 1) == ArraySlice(reread.body + Array("}".utf8)))
        polls.removeAll()
        #expect(try server.terminate() == 0)
    }
}
