import Foundation
import Testing

/// docs/api.md: "A session lives `ttl` seconds without being read or changed". A read moves the
/// idle deadline in memory, and the sweep wrote it only every quarter of `--session-ttl` (30 s
/// at the default): a session whose own `ttl` is shorter than that, read all along, was found
/// expired by a server restarted at once after a kill, its renewals never written.
@Suite("Idle deadlines across a kill")
struct LeaseCrashTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"

    private static func start(_ data: DataDirectory) throws -> (ServerProcess, HTTPConnection) {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", data.path],
            environment: ["ADMIN_TOKEN": secret], accessLog: false)
        return (server, try HTTPConnection(port: UInt16(try server.port())))
    }

    private static func writes(_ client: HTTPConnection) throws -> Double? {
        let text = try client.get("/metrics", token: secret).text
        return metricSamples(text)["presentation_storage_writes_total"]
    }

    @Test("A read well before a kill still counts after an immediate restart, whatever the sweep's interval")
    func readBeforeKill() throws {
        let data = DataDirectory()
        var (server, client) = try Self.start(data)
        defer { if server.process.isRunning { server.crash() } }
        let created = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"], "ttl": 20])
        let session = try #require(CreatedSession(answer: created))
        let madeAt = Date()
        Thread.sleep(forTimeInterval: 6)
        let before = try #require(try Self.writes(client))
        // The deadline moves from 20 s after creation to 26 s.
        #expect(try client.get(session.route(), token: session.token).status == 200)
        // Its 14 s left are under the sweep's 30 s: the renewal must reach the disk long before
        // the sweep comes, within a second or so.
        let written = try eventually(within: 10) { try Self.writes(client) ?? 0 > before }
        #expect(written, "the read's renewal of a session with a 20 s ttl was not written within 10 s")
        server.crash()

        (server, client) = try Self.start(data)
        // Past the deadline the creation set, well before the one the read set.
        Thread.sleep(forTimeInterval: max(0, 22 - Date().timeIntervalSince(madeAt)))
        #expect(
            try client.get(session.route(), token: session.token).status == 200,
            "the read 6 s into a 20 s ttl keeps the session until 26 s, across a kill and a restart")
        #expect(try server.terminate() == 0)
    }
}
