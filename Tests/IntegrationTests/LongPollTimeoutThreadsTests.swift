import Foundation
import Testing

/// Long polls whose time runs out together, as those a thousand clients opened at the same
/// moment do: each answer was written on a thread started for it alone, so the server's threads
/// rose with the clients (249 to 438 for 1,000 waits on two cores), and a process that could start no
/// more (a container's `pids.max`) stopped on a precondition. They are now answered by a fixed
/// set of threads (`DeepTreeWorkers`).
@Suite("Long polls timing out together")
struct LongPollTimeoutThreadsTests {
    @Test("A thousand waits running out at once are all answered, and start no thread each")
    func thousandTimeouts() throws {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--max-connections", "1100"], accessLog: false)
        defer { _ = try? server.terminate() }
        let port = UInt16(try server.port())
        let pid = server.process.processIdentifier
        let session = try HTTPConnection(port: port).createSession()
        // Warmed up: a first wait that runs out starts what every later one shares.
        let first = try HTTPConnection(port: port)
        #expect(try first.get(session.route("events?after=1&wait=1"), token: session.token).status == 200)
        let baseline = try ProcessFootprint(of: pid)

        // Nothing comes after revision 1, so every wait runs out, within a moment of the others.
        let waiting = try (0..<1000).map { _ in
            let connection = try HTTPConnection(port: port, timeout: .seconds(10))
            try connection.write(
                "GET", session.route("events?after=1&wait=2"), headers: [("Authorization", "Bearer \(session.token)")])
            return connection
        }
        var peak = baseline.threads
        let deadline = ContinuousClock.now + .seconds(6)
        while ContinuousClock.now < deadline {
            peak = max(peak, Self.threads(of: pid))
        }
        let answered = waiting.filter { (try? $0.readResponse(timeout: .seconds(10)).status) == 200 }.count
        #expect(answered == waiting.count)
        // libdispatch's timer threads are a few; a thread for each answer was hundreds.
        #expect(peak <= baseline.threads + 32, "\(baseline.threads) threads before, \(peak) while the waits ran out")
        #expect(server.process.isRunning)
    }

    /// The process's threads, from `/proc/PID/stat` alone: `ProcessFootprint` also lists its
    /// thousand descriptors, too slow a sample to catch threads that live a few milliseconds.
    private static func threads(of pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command's closing parenthesis: state, then 16 fields, then the thread count.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 17 ? Int(fields[17]) ?? 0 : 0
    }
}
