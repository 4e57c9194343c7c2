import Foundation
import Testing

/// A change sent with an `Idempotency-Key` keeps its answer, the whole session, to answer its
/// retries; each retry was answered with a copy of it, held until its client read it: fifty
/// retries of a change to a 3.6 MB session that never read took the server from 32 MB to
/// 200 MB, for 11 KB of requests. Retries of one change now send one copy.
@Suite("Unread replays of a keyed change")
struct ReplayCopyTests {
    @Test("Fifty unread retries of a keyed change to a 3.6 MB session share its answer: the server grows by far less than a copy each")
    func replaysShareTheAnswer() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--threads", "2", "--storage", "memory"], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        let blob = String(repeating: "x", count: 120_000)
        for _ in 0..<30 {
            #expect(try client.post("push", to: session, json: ["screen": "big", "params": ["blob": blob]]).status == 200)
        }
        let change = ["state": "done"]
        let key = [("Idempotency-Key", "finish-once")]
        let first = try client.post("set-state", to: session, json: change, headers: key)
        first.expectSession(revision: 32)
        #expect(first.body.count > 3_500_000)
        Thread.sleep(forTimeInterval: 0.5)
        let before = try ProcessFootprint(of: server.process.processIdentifier)

        // Each retries the change, and none reads its answer.
        var retries: [HTTPConnection] = []
        for _ in 0..<50 {
            let retry = try HTTPConnection(port: port, receiveBuffer: 4096)
            try retry.write(
                "POST", session.route("set-state"),
                headers: [
                    ("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json"),
                    ("Idempotency-Key", "finish-once"),
                ],
                body: Array(#"{"state":"done"}"#.utf8))
            retries.append(retry)
        }
        let after = try #require(try ProcessFootprint.settled(of: server.process.processIdentifier))
        let grownKiB = after.residentKiB - before.residentKiB
        // A copy each would be 150 MB and more.
        #expect(grownKiB < 48 << 10, "grew \(grownKiB) KiB: \(before) → \(after)")

        // Each is the first answer again, marked as a replay.
        for retry in [retries[0], retries[49]] {
            let answer = try retry.readResponse(to: "POST", timeout: .seconds(30))
            #expect(answer.status == 200)
            #expect(answer.header("Idempotent-Replayed") == "true")
            #expect(answer.body == first.body)
        }
        try client.get(session.route(), token: session.token).expectSession(revision: 32)
        retries.removeAll()
        #expect(try server.terminate() == 0)
    }
}
