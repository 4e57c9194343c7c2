import Foundation
import Testing

/// An export wrote a copy of the session for each request and held it until its client had
/// read it all (what the socket's buffers could not take): thirty clients that asked for a
/// 12 MB session's export and never read held some 270 MB. Exports of one revision now send
/// one document.
@Suite("Unread exports")
struct ExportCopyTests {
    @Test("Thirty unread exports of a 12 MB session share its document: the server grows by far less than a copy each")
    func exportsShareTheDocument() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--threads", "2", "--max-session-bytes", "\(16 << 20)"], accessLog: false)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        let blob = String(repeating: "x", count: 120_000)
        for _ in 0..<25 {
            let params = ["a": blob, "b": blob, "c": blob, "d": blob]
            #expect(try client.post("push", to: session, json: ["screen": "big", "params": params]).status == 200)
        }
        let whole = try client.get(session.route("export"), token: session.token)
        #expect(whole.status == 200)
        #expect(whole.body.count > 12_000_000)
        Thread.sleep(forTimeInterval: 0.5)
        let before = try ProcessFootprint(of: server.process.processIdentifier)

        // None of these reads its answer, so each stays with the server until it times out.
        var exports: [HTTPConnection] = []
        for _ in 0..<30 {
            let export = try HTTPConnection(port: port)
            try export.write("GET", session.route("export"), headers: [("Authorization", "Bearer \(session.token)")])
            exports.append(export)
        }
        let after = try #require(try ProcessFootprint.settled(of: server.process.processIdentifier))
        let grownKiB = after.residentKiB - before.residentKiB
        // The kernel takes a few MB of each answer; a copy each would leave over 200 MB with us.
        #expect(grownKiB < 64 << 10, "grew \(grownKiB) KiB: \(before) → \(after)")

        // The answers are whole, and each is the document a read at the same revision gets.
        let first = try exports[0].readResponse(to: "GET", timeout: .seconds(30))
        #expect(first.status == 200)
        #expect(first.body == whole.body)
        let last = try exports[29].readResponse(to: "GET", timeout: .seconds(30))
        #expect(last.body == whole.body)
        exports.removeAll()
        #expect(try server.terminate() == 0)
    }
}
