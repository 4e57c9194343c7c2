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

    /// At `maxVectorRuns` pieces the vector is still copied into the connection's memory: 128
    /// bytes, beside the answer's head, of the 1 KiB `HeaderRoom` leaves. The head is at its
    /// longest with a long allowed origin's CORS headers, and the request's at its longest
    /// just under the 431: every head across that band must be answered, 200 or 431, never
    /// dropped.
    @Test("A read in the most pieces given as a vector is answered with every head size up to the 431, with CORS")
    func mostPiecesWithTheLongestHeads() throws {
        let origin = "https://" + String(repeating: "o", count: 200) + ".example"
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--storage", "memory", "--cors-origins", origin], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        // Three revisions (creation and two of 40 KB): head, three runs, two commas and the
        // end, and the tail: eight pieces.
        let session = try client.createSession()
        for index in 0..<2 {
            let answer = try client.post(
                "set-state", to: session, json: ["state": "s\(index)", "params": ["pad": String(repeating: "z", count: 40_000)]],
                headers: [("Prefer", "return=minimal")])
            #expect(answer.status == 200)
        }
        let whole = try client.get(session.route("events?after=0"), token: session.token)
        #expect(whole.status == 200)
        #expect(whole.body.count > 64 << 10)

        var answered: [Int] = []
        var refused: [Int] = []
        var dropped: [Int] = []
        let step = 16
        for pad in stride(from: 13_800, through: 15_400, by: step) {
            let connection = try HTTPConnection(port: port)
            let response: ClientResponse
            do {
                response = try connection.get(
                    session.route("events?after=0"), token: session.token,
                    headers: [("Origin", origin), ("X-Pad", String(repeating: "p", count: pad))])
            } catch {
                dropped.append(pad)
                continue
            }
            switch response.status {
            case 200:
                #expect(response.body == whole.body, "pad \(pad)")
                #expect(response.header("Access-Control-Allow-Origin") == origin)
                answered.append(pad)
            case 431: refused.append(pad)
            default: Issue.record("pad \(pad): status \(response.status)")
            }
        }
        // Every head up to the server's own 431 is answered whole; none is dropped below it. (Past
        // it, libmicrohttpd may find no room even for that 431 and close the connection:
        // docs/api.md, "Errors"; nothing is done then.)
        let firstRefused = try #require(refused.min(), "answered \(answered), dropped \(dropped)")
        #expect(answered.max().map { $0 + step } == firstRefused, "answered up to \(answered.max() ?? 0)")
        #expect(dropped.allSatisfy { $0 > firstRefused }, "dropped \(dropped), refused from \(firstRefused)")
        #expect(server.process.isRunning)
        #expect(try server.terminate() == 0)
    }
}
