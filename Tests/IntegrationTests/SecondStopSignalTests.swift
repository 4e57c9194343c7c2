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

        // An event stream whose client reads nothing, with a small receive buffer: what the
        // changes below send it fills both sides' buffers, so not even its end can be sent,
        // and the stop waits for it up to its grace period (10 s).
        let stalled = try HTTPConnection(port: port, receiveBuffer: 4096)
        try stalled.write(
            "GET", session.route("events?include=session"),
            headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(session.token)")])
        let padding = String(repeating: "x", count: 60_000)
        for index in 0..<40 {
            let answer = try client.post(
                session.route("set-state"), json: ["state": "s\(index)", "params": ["padding": padding]], token: session.token)
            #expect(answer.status == 200)
        }

        let signalled = ContinuousClock.now
        kill(server.process.processIdentifier, signal)
        let waiting = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains(#""event":"stopping""#), Date() < waiting { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.5)
        // Still held by the stream: else this test shows nothing.
        try #require(server.process.isRunning, "the stop did not wait for the stalled stream: \(server.output)")
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
