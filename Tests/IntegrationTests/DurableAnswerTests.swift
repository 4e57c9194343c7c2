import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

/// A journal whose queued saves wait, as on a slow disk, until the test lets them land; those
/// queued before `hold()` (the creation of the sessions under test) land at once.
final class HeldJournal: SessionJournal {
    private let queued = Mutex<[@Sendable (PresentationError?) -> Void]>([])
    private let holding = Atomic<Bool>(false)
    /// What `statistics` reports of a failed flush (`JournalStatistics.writesStopped`).
    let stopped = Atomic<Bool>(false)

    func save(_ session: Session, over previous: StoredSession?, lease: SessionLease) throws(PresentationError) -> Int {
        0
    }

    func save(
        _ session: Session, over previous: StoredSession?, lease: SessionLease,
        then done: @escaping @Sendable (Result<Int, PresentationError>) -> Void
    ) {
        guard holding.load(ordering: .acquiring) else { return done(.success(0)) }
        queued.withLock { $0.append { failure in done(failure.map { .failure($0) } ?? .success(0)) } }
    }

    /// From now on, saves wait for `land()`.
    func hold() {
        holding.store(true, ordering: .releasing)
    }

    func remove(_ sessions: [StoredSession]) throws(PresentationError) {}

    func remove(_ sessions: [StoredSession], then done: @escaping @Sendable (PresentationError?) -> Void) {
        guard holding.load(ordering: .acquiring) else { return done(nil) }
        queued.withLock { $0.append(done) }
    }

    func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError) {}

    var storedBytes: Int { 0 }

    var waiting: Int { queued.withLock { $0.count } }

    /// Waits (up to 3 s) until `count` saves or removals wait: a request the test has only
    /// written reaches the journal when a server thread has read and handled it, which nothing
    /// the test holds orders before its next step (a `land()` before it lands nothing of it).
    func waitFor(_ count: Int) {
        let deadline = ContinuousClock.now + .seconds(3)
        while waiting < count, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    var statistics: JournalStatistics {
        JournalStatistics(
            transactions: 0, writes: 0, syncs: 0, queuedWrites: waiting, storedBytes: 0, engineMemoryBytes: 0,
            writesStopped: stopped.load(ordering: .acquiring))
    }

    /// Lands every queued save, as written.
    func land() {
        let done = queued.withLock { queued in
            defer { queued = [] }
            return queued
        }
        for finish in done { finish(nil) }
    }
}

@Suite("Answers from durable storage")
struct DurableAnswerTests {
    /// A server over a `HeldJournal`, and a push to a new session sent but not yet answered.
    static func pendingPush() throws -> (HeldJournal, TestServer, HTTPConnection, CreatedSession) {
        let journal = HeldJournal()
        let server = try TestServer(journal: journal)
        let client = try server.connect()
        let session = try client.createSession()
        journal.hold()
        try client.write(
            "POST", session.route("push"),
            headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
            body: Array(#"{"screen":"detail"}"#.utf8))
        journal.waitFor(1)
        #expect(!client.hasData(within: .milliseconds(200)), "answered before the write landed")
        return (journal, server, client, session)
    }

    @Test("A change is answered once it is written; until then readers see the session as it was")
    func answeredOnceWritten() throws {
        let (journal, server, client, session) = try Self.pendingPush()
        defer { server.stop() }
        #expect(journal.waiting == 1)
        let reader = try server.connect()
        #expect(try reader.fetch(session)["revision"] as? Int == 1)
        journal.land()
        let response = try client.readResponse(to: "POST", timeout: .seconds(2))
        #expect(response.status == 200)
        #expect(try response.json()["revision"] as? Int == 2)
        #expect(try reader.fetch(session)["revision"] as? Int == 2)
    }

    @Test("Creations, token rotations and deletions wait for their write on parked connections, not on workers")
    func otherWritesParked() throws {
        let journal = HeldJournal()
        let server = try TestServer(journal: journal)
        defer { server.stop() }
        let reader = try server.connect()
        let session = try reader.createSession()
        journal.hold()
        // More writes waiting than the server has workers (two): were each holding one, the
        // reads below would wait too.
        let creators = try (0..<3).map { _ in try server.connect() }
        for creator in creators {
            try creator.write(
                "POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                body: Array(#"{"root":{"screen":"home"}}"#.utf8))
        }
        let rotator = try server.connect()
        try rotator.write("POST", session.route("token"), headers: [("Authorization", "Bearer \(session.token)")], body: [])
        journal.waitFor(4)
        #expect(journal.waiting == 4)
        #expect(try reader.get("/healthz").status == 200)
        #expect(try reader.fetch(session)["revision"] as? Int == 1, "the old token serves until the new one is written")
        #expect(creators.allSatisfy { !$0.hasData(within: .milliseconds(20)) })
        journal.land()
        for creator in creators {
            #expect(try creator.readResponse(to: "POST", timeout: .seconds(2)).status == 201)
        }
        let rotated = try rotator.readResponse(to: "POST", timeout: .seconds(2))
        #expect(rotated.status == 200)
        let token = try #require(try rotated.json()["token"] as? String)

        let deleter = try server.connect()
        try deleter.write("DELETE", session.route(), headers: [("Authorization", "Bearer \(token)")])
        journal.waitFor(1)
        #expect(journal.waiting == 1)
        #expect(!deleter.hasData(within: .milliseconds(200)), "answered before the removal landed")
        #expect(try reader.get(session.route(), token: token).status == 200, "gone before the removal landed")
        journal.land()
        #expect(try deleter.readResponse(to: "DELETE", timeout: .seconds(2)).status == 204)
        #expect(try reader.get(session.route(), token: token).status == 404)
    }

    @Test("A creation retried with its idempotency key while the first is being written waits, and gets the same session")
    func keyedCreationWaitsForTheFirst() throws {
        let journal = HeldJournal()
        let server = try TestServer(journal: journal)
        defer { server.stop() }
        journal.hold()
        let body = Array(#"{"root":{"screen":"home"}}"#.utf8)
        let headers = [("Content-Type", "application/json"), ("Idempotency-Key", "create-once")]
        let first = try server.connect()
        let retry = try server.connect()
        try first.write("POST", "/v1/sessions", headers: headers, body: body)
        journal.waitFor(1)
        try retry.write("POST", "/v1/sessions", headers: headers, body: body)
        #expect(!retry.hasData(within: .milliseconds(200)), "the retry was answered before the first was written")
        #expect(journal.waiting == 1, "the retry made a session of its own")
        journal.land()
        let original = try first.readResponse(to: "POST", timeout: .seconds(2))
        let replayed = try retry.readResponse(to: "POST", timeout: .seconds(2))
        #expect(original.status == 201 && replayed.status == 201)
        #expect(original.body == replayed.body)
        #expect(original.header("Idempotent-Replayed") == nil && replayed.header("Idempotent-Replayed") == "true")
    }

    @Test("A stopping server closes new connections unanswered while a change in flight finishes")
    func stoppingClosesNewConnections() throws {
        let (journal, server, client, _) = try Self.pendingPush()
        defer { server.stop() }
        let stopped = Self.stopInBackground(server)
        // The listening socket stays open until the daemon stops (after the 2 s grace), so the
        // kernel completes each handshake; once stopping, the server closes the connection
        // without a byte. Until `stop` has begun on its thread a connection is still served,
        // and on a loaded machine that thread may start late (1.5 s was once too short in CI):
        // the loop waits for it as long as a server start may take.
        let deadline = ContinuousClock.now + .seconds(ServerProcess.patience)
        var closedUnanswered = false
        while !closedUnanswered, ContinuousClock.now < deadline {
            let late = try server.connect()
            try? late.write("GET", "/healthz")
            closedUnanswered = Self.closesUnanswered(late, within: .milliseconds(300))
        }
        #expect(closedUnanswered, "connections opened while stopping were still served")
        journal.land()
        let response = try client.readResponse(to: "POST", timeout: .seconds(3))
        #expect(response.status == 200)
        stopped.wait()
    }

    /// Starts `server.stop()` on another thread; the semaphore is signalled when it returns.
    private static func stopInBackground(_ server: TestServer) -> DispatchSemaphore {
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop()
            stopped.signal()
        }
        return stopped
    }

    /// True when the server ends `connection` (a close or a reset) before sending it a byte.
    private static func closesUnanswered(_ connection: HTTPConnection, within interval: Duration) -> Bool {
        do {
            return try connection.readAvailable(until: ContinuousClock.now + interval) == nil
        } catch .timedOut {
            return false
        } catch {
            return true
        }
    }

    @Test("Stopping the server lets a change being written finish with its answer, not 503")
    func shutdownWaitsForWrites() throws {
        let (journal, server, client, _) = try Self.pendingPush()
        defer { server.stop() }
        let stopped = Self.stopInBackground(server)
        Thread.sleep(forTimeInterval: 0.2)
        journal.land()
        let response = try client.readResponse(to: "POST", timeout: .seconds(3))
        #expect(response.status == 200)
        #expect(try response.json()["revision"] as? Int == 2)
        stopped.wait()
    }
}
