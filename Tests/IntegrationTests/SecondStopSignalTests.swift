import Foundation
import Testing

/// README: a second stop signal during the stop ends its grace period at once, so that an
/// operator need not wait it out (nor send SIGKILL, which loses the access log's last lines).
@Suite("A second stop signal")
struct SecondStopSignalTests {
    @Test("A second SIGTERM or SIGINT ends the wait for a client that never reads, and the stop ends with 0", arguments: [SIGTERM, SIGINT])
    func hurriesTheStop(signal: Int32) throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try #require(CreatedSession(answer: try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])))

        // A read whose client takes nothing of its 3.6 MB answer: the stop waits for it up to
        // its grace period (10 s).
        let stalled = try StalledReader.largeRead(port: port, of: session, changedBy: client, server: server)
        defer { withExtendedLifetime(stalled) {} }

        let signalled = ContinuousClock.now
        kill(server.process.processIdentifier, signal)
        StalledReader.waitForStopToBegin(server)
        Thread.sleep(forTimeInterval: 0.5)
        // Still held by the read: else this test shows nothing.
        try #require(server.process.isRunning, "the stop did not wait for the stalled read: \(server.output)")
        #expect(try server.terminate(with: signal) == 0)
        let took = ContinuousClock.now - signalled
        // Without the second signal the stop takes the whole grace period, 10 s.
        #expect(took < .seconds(5), "the stop took \(took)")
        #expect(server.process.terminationReason == .exit)
        let events = server.logLines().compactMap { $0["event"] as? String }
        #expect(events.contains("stopping_now"), "\(events)")
        #expect(events.last == "stopped", "\(events)")
    }
}
