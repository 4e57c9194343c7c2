import Foundation
import Testing

/// A read of a session's events (`GET …/events?after=N`) wrote every event after N into an
/// answer of its own, held until its client read it: fifty reads of a 4 MB history that never
/// read took the server from 32 MB to 246 MB, for 7 KB of requests. Each revision's events are
/// now written once and shared by every answer that sends them.
@Suite("Unread event listings")
struct EventListingCopyTests {
    @Test("Fifty unread reads of a 4 MB history share its events: the server grows by far less than a copy each")
    func listingsShareTheEvents() throws {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--storage", "memory"], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let (session, oldest, kept) = try client.sessionWithLargeHistory()
        Thread.sleep(forTimeInterval: 0.5)
        let before = try ProcessFootprint(of: server.process.processIdentifier)

        // Each asks for every event kept, some from a later revision, and none reads.
        var reads: [HTTPConnection] = []
        for index in 0..<50 {
            let read = try HTTPConnection(port: port, receiveBuffer: 4096)
            try read.write(
                "GET", session.route("events?after=\(oldest + index % 4)"),
                headers: [("Authorization", "Bearer \(session.token)")])
            reads.append(read)
        }
        let after = try #require(try ProcessFootprint.settled(of: server.process.processIdentifier))
        let grownKiB = after.residentKiB - before.residentKiB
        // A copy each would be 200 MB and more.
        #expect(grownKiB < 48 << 10, "grew \(grownKiB) KiB: \(before) → \(after)")

        // The answers are whole, and each is what a read that keeps up gets.
        let first = try reads[0].readResponse(to: "GET", timeout: .seconds(30))
        #expect(first.status == 200)
        #expect(first.body == kept.body)
        let later = try reads[1].readResponse(to: "GET", timeout: .seconds(30))
        let events = try #require(try later.json()["events"] as? [[String: Any]])
        #expect(events.map { $0["revision"] as? Int } == (oldest + 2...21).map { $0 })
        // With the session, the events come first, then the session as a read gives it.
        let withSession = try client.get(session.route("events?after=\(oldest)&include=session"), token: session.token)
        let tree = try client.get(session.route(), token: session.token)
        #expect(withSession.body == kept.body.dropLast() + Array(#","session":"#.utf8) + tree.body + Array("}".utf8))
        reads.removeAll()
        #expect(try server.terminate() == 0)
    }
}
