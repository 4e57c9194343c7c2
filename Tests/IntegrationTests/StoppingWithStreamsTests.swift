import Foundation
import Testing

/// README: a stop ends event streams; their clients resume with `Last-Event-ID`. A stream
/// whose client reads nothing must not hold the stop for its whole grace period (10 s, also
/// Docker's before its SIGKILL, which would lose the stop's last writes).
@Suite("Stopping with event streams open")
struct StoppingWithStreamsTests {
    @Test("A stop ends a read stream cleanly and does not wait out one whose client reads nothing")
    func stalledStreamDoesNotHoldTheStop() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try #require(CreatedSession(answer: try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])))

        let reading = try HTTPConnection(port: port)
        try reading.write(
            "GET", session.route("events"),
            headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(session.token)")])
        let deadline = ContinuousClock.now + .seconds(ServerProcess.patience)
        #expect(try reading.readHead(until: deadline).status == 200)
        let stalled = try StalledReader.eventStream(port: port, of: session, changedBy: client)
        defer { withExtendedLifetime(stalled) {} }

        let signalled = ContinuousClock.now
        kill(server.process.processIdentifier, SIGTERM)
        // The read stream gets its end: every event, then the chunked body's last chunk.
        while try reading.readChunk(until: deadline) != nil {}
        #expect(try server.waitForExit() == 0)
        let took = ContinuousClock.now - signalled
        // Waiting for the stalled stream, the stop took the whole grace period, 10 s.
        #expect(took < .seconds(5), "the stop took \(took)")
        let events = server.logLines().compactMap { $0["event"] as? String }
        #expect(!events.contains("stopping_now"), "\(events)")
        #expect(events.last == "stopped", "\(events)")
    }
}
