import Foundation
import Testing

/// `--max-session-write-rate`: on durable storage a change writes its whole session, so a large
/// session's changes are slowed to so many bytes written a second (429 `write_rate_limited`,
/// nothing changed); with the limit off, or in memory, nothing is slowed.
@Suite("Write rate of large sessions")
struct WriteRateTests {
    /// Params that make each write of a session about 70 KB.
    static var largeRoot: [String: Any] { ["screen": "inbox", "params": ["text": String(repeating: "x", count: 70_000)]] }

    /// Push `index` (even) or pop (odd) of a small screen, under an `Idempotency-Key` of its own.
    static func change(_ index: Int, _ client: HTTPConnection, _ session: CreatedSession) throws -> ClientResponse {
        let key = [("Idempotency-Key", "change-\(index)")]
        return index.isMultiple(of: 2)
            ? try client.post("push", to: session, json: ["screen": "small"], headers: key)
            : try client.post("pop", to: session, headers: key)
    }

    /// Changes `session` until a change is refused or `attempts` run out: the refused answer,
    /// and the index and answer of the last change made.
    static func changeUntilRefused(
        _ client: HTTPConnection, _ session: CreatedSession, attempts: Int
    ) throws -> (refused: ClientResponse?, last: (index: Int, answer: ClientResponse)?) {
        var last: (index: Int, answer: ClientResponse)?
        for index in 0..<attempts {
            let answer = try change(index, client, session)
            guard answer.status == 200 else { return (answer, last) }
            last = (index, answer)
        }
        return (nil, last)
    }

    @Test("Past its burst a large session's change gets 429 with Retry-After and changes nothing; after the wait it is made")
    func largeSessionSlowed() throws {
        let data = DataDirectory()
        let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path, "--max-session-write-rate", "65536"],
            environment: ["ADMIN_TOKEN": secret], accessLog: false)
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        let counted = { () throws -> Double? in
            metricSamples(try client.get("/metrics", token: secret).text)["presentation_write_rate_sessions"]
        }
        #expect(try counted() == 0, "nothing written yet")
        let session = try client.createSession(root: Self.largeRoot)
        // Four seconds of 64 KiB a second let about three changes of a 70 KB session through.
        let (refusedAnswer, lastMade) = try Self.changeUntilRefused(client, session, attempts: 30)
        let refused = try #require(refusedAnswer, "30 changes of a 70 KB session in a row were all made")
        let problem = refused.expectProblem(429, "write_rate_limited")
        #expect(problem["limit"] as? Int == 65536)
        let wait = try #require(refused.header("Retry-After").flatMap { Int($0) }, "Retry-After: \(refused.headers)")
        // At most the last write's share: a session of about 70 KB at 64 KiB a second.
        #expect((1...3).contains(wait))
        let before = try client.snapshot(of: session)
        #expect(try client.events(of: session, after: before.revision).isEmpty)
        // A keyed retry of a change made is a replay, which writes nothing: never refused.
        let last = try #require(lastMade, "the first change was refused")
        let replay = try Self.change(last.index, client, session)
        #expect(replay.status == 200, "the replay: \(replay.text)")
        #expect(replay.body == last.answer.body)
        #expect(try client.snapshot(of: session) == before)
        #expect(try counted() == 1)
        // The refused change, sent again with its key once the wait is over, is made.
        Thread.sleep(forTimeInterval: Double(wait))
        try Self.change(last.index + 1, client, session).expectSession(revision: before.revision + 1)
        #expect(try server.terminate() == 0)
    }

    @Test("A session's kept events, written once each, are not charged again on every change")
    func keptEventsNotRecharged() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        // A form that saves its 20 KB draft as the screen's state: each change writes the tree
        // (one draft) and its one new event (another), about 40 KB, 2.4 MB for the 60, well
        // within the default burst of 8 MiB. The kept events grow to 128 drafts (2.5 MB), but
        // each was written once, by the change that made it; charging them again on every
        // change refused this client after about 30.
        let pad = String(repeating: "d", count: 20_000)
        for index in 0..<60 {
            let answer = try client.post(
                "set-state", to: session, json: ["state": "draft", "params": ["text": "\(index)" + pad]],
                headers: [("Prefer", "return=minimal")])
            #expect(answer.status == 200 || answer.status == 204, "set-state \(index): \(answer.status) \(answer.text)")
            guard answer.status == 200 || answer.status == 204 else { break }
        }
        #expect(try server.terminate() == 0)
    }

    @Test("With the limit off a large session is never slowed, nor in memory")
    func noLimitNoSlowing() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer(["--max-session-write-rate", "0"])
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: port)
        let large = try client.createSession(root: Self.largeRoot)
        // Well past the 256 KiB a burst of 64 KiB a second would allow: about 1.4 MB.
        #expect(try Self.changeUntilRefused(client, large, attempts: 20).refused == nil, "with the limit off")
        #expect(try server.terminate() == 0)
        let memory = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "memory", "--max-session-write-rate", "65536"], accessLog: false)
        defer { _ = try? memory.terminate() }
        let memoryClient = try HTTPConnection(port: UInt16(try memory.port()))
        let inMemory = try memoryClient.createSession(root: Self.largeRoot)
        #expect(try Self.changeUntilRefused(memoryClient, inMemory, attempts: 20).refused == nil, "in memory")
    }

    /// Every session is counted: with a size below which writes went uncounted (64 KiB at
    /// first), sessions kept just under it wrote 187 MB a second to disk unslowed.
    @Test("A small session writing past the rate is slowed too")
    func smallSessionsCounted() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer(["--max-session-write-rate", "65536"])
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: port)
        // 20 KB a write: a burst of 256 KiB lets about a dozen through at once.
        let small = try client.createSession(root: ["screen": "inbox", "params": ["text": String(repeating: "s", count: 20_000)]])
        let refused = try #require(
            try Self.changeUntilRefused(client, small, attempts: 200).refused, "200 writes of 20 KB were all made")
        refused.expectProblem(429, "write_rate_limited")
        #expect(try server.terminate() == 0)
    }
}
