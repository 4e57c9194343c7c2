import Foundation
import Testing

/// A commit whose frames, commit frame included, reached the write-ahead log but whose index
/// (`-shm`) could not grow on a full disk: SQLite fails the commit and the server refuses the
/// change, but the frames stay in the log, chained and valid. SQLite's recovery after a crash
/// reads the log, not the lost index, and would take that transaction as committed: a change
/// answered with an error would be there after the restart (docs/api.md, "Lifetime and
/// storage": a change refused for storage changes nothing, on disk as in memory).
@Suite("A log whose index could not grow")
struct FailedIndexGrowthTests {
    @Test("A change refused because the log's index could not grow is not there after a crash and a restart")
    func refusedChangeStaysOutAfterCrash() throws {
        let data = DataDirectory()
        let disk = try FailingDisk(data: data)
        let (server, client) = try disk.startServer(["--max-stack-length", "10000", "--max-session-write-rate", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        // Each change logs the whole session, a few pages: the log passes the index's first
        // region (4,062 frames) within a few hundred changes. (A session this size has that
        // frame crossed by a change rather than by a fold, which fails too, without a word, and
        // whose frames, written over the change's, happen to break their chain.)
        let blob = String(repeating: "x", count: 20_000)
        let session = try client.createSession(root: ["screen": "inbox", "params": ["blob": blob]])
        var acknowledged = 1
        try disk.fillIndex()
        var refused: ClientResponse?
        for attempt in 0..<400 where refused == nil {
            let answer = try client.post("push", to: session, json: ["screen": "s\(attempt)"])
            if answer.status == 200 { acknowledged += 1 } else { refused = answer }
        }
        let refusal = try #require(refused, "the log never needed its index to grow")
        #expect([503, 507].contains(refusal.status), "\(refusal.text)")
        #expect(try client.fetch(session)["revision"] as? Int == acknowledged)

        // A crash: no clean stop to checkpoint the log by the index the server still held.
        server.crash()
        try disk.freeIndex()
        let revision = try data.revisionAfterRestart(of: session, after: "a crash after a failed index growth")
        #expect(revision == acknowledged, "revision \(String(describing: revision)) after the restart, \(acknowledged) acknowledged")
    }
}
