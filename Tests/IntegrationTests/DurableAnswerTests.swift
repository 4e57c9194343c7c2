import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

/// A journal whose queued saves wait, as on a slow disk, until the test lets them land.
/// Creations (the blocking `save`) land at once.
final class HeldJournal: SessionJournal {
    private let queued = Mutex<[@Sendable (PresentationError?) -> Void]>([])

    func save(_ session: Session, lease: SessionLease) throws(PresentationError) {}

    func save(_ session: Session, lease: SessionLease, then done: @escaping @Sendable (PresentationError?) -> Void) {
        queued.withLock { $0.append(done) }
    }

    func remove(_ ids: [SessionID]) throws(PresentationError) {}

    func touch(_ leases: [SessionID: SessionLease]) throws(PresentationError) {}

    var storedBytes: Int { 0 }

    var waiting: Int { queued.withLock { $0.count } }

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
        try client.write(
            "POST", session.route("push"),
            headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
            body: Array(#"{"screen":"detail"}"#.utf8))
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

    @Test("Stopping the server lets a change being written finish with its answer, not 503")
    func shutdownWaitsForWrites() throws {
        let (journal, server, client, _) = try Self.pendingPush()
        defer { server.stop() }
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop()
            stopped.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        journal.land()
        let response = try client.readResponse(to: "POST", timeout: .seconds(3))
        #expect(response.status == 200)
        #expect(try response.json()["revision"] as? Int == 2)
        stopped.wait()
    }
}
