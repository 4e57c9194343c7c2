import Foundation
import Testing

/// A read of more than 64 KB of events is sent as runs shared by revision, two pieces a
/// revision (the run, then a comma). libmicrohttpd 0.9.75 copies the vector of pieces into the
/// connection's memory (`--connection-memory`, 16 KiB), which also holds the request's head:
/// with the 128 revisions kept by default and a head of 12 KB, or a few hundred revisions
/// and any head, the copy did not fit, the connection was closed unanswered, and
/// libmicrohttpd then aborted the whole server ("Failed to destroy mutex"). Any client
/// holding a session's token could stop the server.
@Suite("Events reads of many revisions")
struct EventListingPiecesTests {
    @Test("A large read of many revisions is answered whole, whatever room its head leaves, and the server lives on")
    func manyRevisionsAnswered() throws {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--storage", "memory", "--events-kept", "2000"], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)

        // 128 revisions of some 700 bytes: over 64 KB, so sent in runs; read with a head of 12 KB.
        let wide = try client.createSession()
        let pad = String(repeating: "z", count: 600)
        for index in 0..<127 {
            let answer = try client.post(
                "set-state", to: wide, json: ["state": "s\(index)", "params": ["pad": pad]],
                headers: [("Prefer", "return=minimal")])
            #expect(answer.status == 200)
        }
        let plain = try client.get(wide.route("events?after=0"), token: wide.token)
        #expect(plain.status == 200)
        #expect(plain.body.count > 64 << 10)
        let padded = try HTTPConnection(port: port).get(
            wide.route("events?after=0"), token: wide.token, headers: [("X-Pad", String(repeating: "p", count: 12_000))])
        #expect(padded.status == 200)
        #expect(padded.body == plain.body)

        // 1,100 small revisions: over 64 KB, 2,200 pieces, with an ordinary head.
        let long = try client.createSession()
        for index in 0..<1_099 {
            let answer = try client.post(
                "set-state", to: long, json: ["state": "s\(index)"], headers: [("Prefer", "return=minimal")])
            #expect(answer.status == 200)
        }
        let read = try HTTPConnection(port: port).get(long.route("events?after=0"), token: long.token)
        #expect(read.status == 200)
        #expect(read.body.count > 64 << 10)
        let events = try #require(try read.json()["events"] as? [[String: Any]])
        #expect(events.map { $0["revision"] as? Int } == (1...1_100).map { $0 })
        // The same events with the session after them.
        let withSession = try HTTPConnection(port: port).get(long.route("events?after=0&include=session"), token: long.token)
        let tree = try client.get(long.route(), token: long.token)
        #expect(withSession.body == read.body.dropLast() + Array(#","session":"#.utf8) + tree.body + Array("}".utf8))

        #expect(server.process.isRunning)
        #expect(try server.terminate() == 0)
    }
}
