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
        #expect(samples["process_virtual_memory_bytes"] == Double(try #require(status["VmSize"])) * 1024)
        #expect(samples["process_threads"] == Double(try #require(status["Threads"])))
        let started = try #require(samples["process_start_time_seconds"])
        // Boot time is whole seconds, so a second either way.
        #expect(started >= launched.timeIntervalSince1970 - 1 && started <= listening.timeIntervalSince1970 + 1)
        let cpu = try #require(samples["process_cpu_seconds_total"])
        #expect(cpu >= 0 && cpu <= Date().timeIntervalSince(launched) * Double(ProcessInfo.processInfo.activeProcessorCount))
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        #expect(abs(samples["process_open_fds", default: 0] - Double(descriptors)) <= 1, "the listing's own descriptor")
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(samples["process_max_fds"] == Double(limit.rlim_cur), "inherited from this test process")
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
