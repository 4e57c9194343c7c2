import Foundation
import Testing

/// `/metrics` of the real binary with durable storage: the storage's counters follow the writes
/// made, and the process's figures agree with what Linux reports for that process.
@Suite("Metrics of the process and its storage")
struct ProcessMetricsTests {
    static let secret = String(repeating: "m", count: 40)

    @Test("Storage counters follow the writes; process figures match /proc for the server's pid")
    func durableServer() throws {
        let data = DataDirectory()
        let launched = Date()
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path],
            environment: ["ADMIN_TOKEN": Self.secret], accessLog: false)
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(try server.port()))
        let listening = Date()
        let pid = server.process.processIdentifier

        let sessions = try (0..<3).map { _ in try client.createSession() }
        try client.post("push", to: sessions[0], json: ["screen": "detail"]).expectSession()
        #expect(try client.delete(sessions[1].route(), token: sessions[1].token).status == 204)
        // Refused before the journal: not a write.
        try client.post("push", to: sessions[0], json: ["screen": 5]).expectProblem(422, "invalid_field")
        let page = try client.get("/metrics", token: Self.secret)
        #expect(page.status == 200)
        let samples = metricSamples(page.text)
        let status = try Self.status(of: pid)

        #expect(samples["presentation_storage_writes_total"] == 5, "three creations, a push and a deletion")
        let transactions = try #require(samples["presentation_storage_transactions_total"])
        let syncs = try #require(samples["presentation_storage_syncs_total"])
        #expect((1...5).contains(transactions))
        #expect(syncs >= 1 && syncs <= transactions)
        #expect(samples["presentation_storage_queued_writes"] == 0)
        #expect(samples["presentation_storage_stored_bytes", default: 0] > 0)
        #expect(samples["presentation_storage_engine_memory_bytes", default: 0] > 0)

        let resident = try #require(samples["process_resident_memory_bytes"])
        let reported = Double(try #require(status["VmRSS"])) * 1024
        #expect(abs(resident - reported) < reported * 0.1, "RSS \(resident) against VmRSS \(reported)")
        // Threads come and go between the page and this read (libdispatch's workers, a long
        // poll's timer), and each moves the virtual size by its stack: close, not equal.
        let threads = Double(try #require(status["Threads"]))
        #expect(abs(samples["process_threads", default: -100] - threads) <= 2, "threads: \(threads) in /proc")
        let virtual = Double(try #require(status["VmSize"])) * 1024
        #expect(abs(samples["process_virtual_memory_bytes", default: 0] - virtual) <= 32 * 1024 * 1024, "VmSize: \(virtual)")
        let started = try #require(samples["process_start_time_seconds"])
        // Boot time is whole seconds, so a second either way.
        #expect(started >= launched.timeIntervalSince1970 - 1 && started <= listening.timeIntervalSince1970 + 1)
        let cpu = try #require(samples["process_cpu_seconds_total"])
        #expect(cpu >= 0 && cpu <= Date().timeIntervalSince(launched) * Double(ProcessInfo.processInfo.activeProcessorCount))
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        #expect(abs(samples["process_open_fds", default: 0] - Double(descriptors)) <= 1, "the listing's own descriptor")
        // The server's own soft limit, which it raises to the hard one at start: not this
        // test process's, which is lower wherever the soft limit is below the hard one.
        #expect(samples["process_max_fds"] == Double(try Self.openFilesLimit(of: pid)))
    }

    /// The soft limit on open files, from `/proc/PID/limits`.
    static func openFilesLimit(of pid: Int32) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        return try #require(fields.first.flatMap { Int($0) }, "\(line)")
    }

    /// The `Name: value` lines of `/proc/PID/status` with a number for a value (kB for sizes).
    static func status(of pid: Int32) throws -> [String: Int] {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let number = Int(parts[1].split(whereSeparator: \.isWhitespace).first ?? "") else { continue }
            fields[String(parts[0])] = number
        }
        return fields
    }
}
