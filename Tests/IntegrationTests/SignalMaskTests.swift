import Foundation
import Testing

/// The stop signals reach the server through its dispatch sources' signalfd alone: every
/// thread blocks them, so no thread takes one through a handler (and no detour can lose it).
@Suite("Stop signals and the server's threads")
struct SignalMaskTests {
    /// The signals a thread blocks, from its `SigBlk` line in /proc (a hex mask, bit n - 1 for signal n).
    static func blocked(task: String) throws -> UInt64 {
        let status = try String(contentsOfFile: task + "/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
        return try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    @Test(
        "Every thread of a running server blocks SIGINT, SIGTERM and SIGHUP, and SIGTERM still stops it with 0",
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
        let threads = try FileManager.default.contentsOfDirectory(atPath: tasks)
        #expect(threads.count > 1)
        let stopMask: UInt64 = [SIGINT, SIGTERM, SIGHUP].reduce(0) { $0 | 1 << UInt64($1 - 1) }
        for thread in threads {
            let name = (try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)) ?? "?"
            let blocked = try Self.blocked(task: "\(tasks)/\(thread)")
            #expect(
                blocked & stopMask == stopMask,
                "thread \(thread) (\(name.trimmingCharacters(in: .newlines))) takes stop signals: SigBlk \(String(blocked, radix: 16))")
        }
        #expect(try server.terminate() == 0)
        #expect(server.process.terminationReason == .exit)
    }
}
