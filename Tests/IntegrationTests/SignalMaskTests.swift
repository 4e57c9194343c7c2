import Foundation
import Testing

/// The stop signals reach the server through one thread's `sigwait` alone: every other
/// thread blocks them, so no thread takes one through a handler (and no detour can lose it).
/// The waiting thread blocks them too, but while it waits in `sigwait` the kernel shows the
/// signals it waits for as unblocked there: it is told apart by its name.
@Suite("Stop signals and the server's threads")
struct SignalMaskTests {
    /// The signals a thread blocks, from its `SigBlk` line in /proc (a hex mask, bit n - 1 for signal n).
    static func blocked(task: String) throws -> UInt64 {
        let status = try String(contentsOfFile: task + "/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
        return try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    @Test(
        "Every thread of a running server blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT, and SIGTERM still stops it with 0",
        arguments: [["--storage", "memory"], ["--storage", "sqlite"]])
    func everyThreadBlocksStopSignals(storage: [String]) throws {
        let directory = NSTemporaryDirectory() + "presentation-data-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--data-dir", directory] + storage)
        let port = try server.port()
        // Work first, so that the threads made on demand exist too: a durable write starts the
        // journal's, an event stream parks a connection, the heartbeat's timer runs.
        let created = try Curl.run([
            "-s", "http://127.0.0.1:\(port)/v1/sessions", "-H", "Content-Type: application/json",
            "-d", #"{"root": {"screen": "inbox"}}"#,
        ])
        #expect(created.contains("\"token\""), "\(created)")
        let tasks = "/proc/\(server.process.processIdentifier)/task"
        let stopMask: UInt64 = [SIGINT, SIGTERM, SIGHUP, SIGQUIT].reduce(0) { $0 | 1 << UInt64($1 - 1) }
        var threads: [String] = []
        var waiters = 0
        var takers: [String] = []
        // Looked at until the waiter has its name: a thread names itself once it runs, which
        // nothing orders before the listening line. A thread that ends between the listing and
        // the read of its status (a libdispatch worker let go) is not there to take a signal.
        _ = try eventually {
            threads = try FileManager.default.contentsOfDirectory(atPath: tasks)
            waiters = 0
            takers = []
            for thread in threads {
                guard let blocked = try? Self.blocked(task: "\(tasks)/\(thread)") else { continue }
                let name = ((try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .newlines)
                if name == "stop-signals" {
                    waiters += 1
                } else if blocked & stopMask != stopMask {
                    takers.append("thread \(thread) (\(name)): SigBlk \(String(blocked, radix: 16))")
                }
            }
            return waiters == 1
        }
        #expect(threads.count > 1)
        #expect(takers.isEmpty, "threads that take stop signals: \(takers)")
        #expect(waiters == 1, "one thread waits for the stop signals")
        #expect(try server.terminate() == 0)
        #expect(server.process.terminationReason == .exit)
    }

    /// README: "A stop signal that comes while start-up is still loading the stored sessions
    /// waits until the server listens, which then stops at once, cleanly". `docker stop` during
    /// a long restore must not be lost, or the server serves on until the runtime's SIGKILL.
    /// The test holds a lock over the whole database file (every lock byte SQLite uses), so
    /// start-up waits in SQLite's busy timeout (5 s) with the stop signals already blocked;
    /// SIGTERM comes then, and the lock is let go.
    @Test("A SIGTERM during start-up's restore stops the server once it listens, with 0")
    func stopDuringRestore() throws {
        let directory = NSTemporaryDirectory() + "presentation-data-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Run in the data directory, which has no `Public`: the default's absence is logged.
        let arguments = ["--port", "0", "--storage", "sqlite", "--data-dir", directory]
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let first = try ServerProcess.start(arguments: arguments, directory: directory)
        _ = try first.port()
        #expect(try first.terminate() == 0)

        let database = open(directory + "/sessions.sqlite3", O_RDWR)
        try #require(database >= 0)
        defer { close(database) }
        var whole = flock()
        whole.l_type = Int16(F_WRLCK)
        whole.l_whence = Int16(SEEK_SET)
        try #require(fcntl(database, F_SETLK, &whole) == 0)

        let server = try ServerProcess.start(arguments: arguments, directory: directory)
        // Logged before the database is opened, after the signals are blocked.
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains("no_public_directory"), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!server.output.contains(#""event":"listening""#), "start-up did not wait for the lock: \(server.output)")
        kill(server.process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.2)
        whole.l_type = Int16(F_UNLCK)
        _ = fcntl(database, F_SETLK, &whole)

        let stopDeadline = Date().addingTimeInterval(ServerProcess.patience)
        while server.process.isRunning, Date() < stopDeadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !server.process.isRunning else {
            Issue.record("the SIGTERM sent during start-up was lost: the server serves on. Log: \(server.output)")
            _ = try? server.terminate()
            return
        }
        #expect(server.process.terminationStatus == 0 && server.process.terminationReason == .exit)
        // Its output pipe may still hold the last lines.
        let drained = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains(#""event":"stopped""#), Date() < drained { Thread.sleep(forTimeInterval: 0.02) }
        #expect(server.output.contains(#""event":"stopped""#), "\(server.output)")
    }
}
