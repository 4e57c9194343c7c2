import Foundation
import Testing

/// `--max-memory`: past it, new sessions are refused while existing ones go on, and once memory
/// is freed (sessions deleted) they are made again. Over HTTP against the durable binary, its
/// resident memory read from /proc as the server reads its own.
@Suite("Memory limit")
struct MemoryLimitTests {
    /// The server's resident bytes, as `/proc/<pid>/statm` counts them.
    private static func residentBytes(_ server: ServerProcess) throws -> Int {
        let statm = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/statm", encoding: .utf8)
        let pages = try #require(Int(statm.split(separator: " ")[1]))
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("Below the process's resident memory, every creation and import gets 503 and nothing is made")
    func limitBelowIdle() throws {
        let data = DataDirectory()
        let admin = String(repeating: "a", count: 40)
        let tokenFile = data.path + "-admin-token"
        try Data(admin.utf8).write(to: URL(fileURLWithPath: tokenFile))
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let (server, port) = try data.startServer(["--max-memory", "1048576", "--admin-token-file", tokenFile])
        let client = try HTTPConnection(port: port)
        let refused = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
        let problem = refused.expectProblem(503, "memory_limit_reached")
        #expect(problem["limit"] as? Int == 1_048_576)
        #expect(refused.header("Retry-After") == "60")
        #expect(try client.get("/healthz").status == 200)
        // The limit is in the metrics, beside the resident memory it is compared with.
        let samples = metricSamples(try client.get("/metrics", token: admin).text)
        #expect(samples["presentation_memory_limit_bytes"] == 1_048_576)
        #expect(samples["process_resident_memory_bytes", default: 0] > 1_048_576)
        #expect(try server.terminate() == 0)
        let listening = server.logLines().first { $0["event"] as? String == "listening" }
        #expect(listening?["max_memory"] as? Int == 1_048_576)
        // Started past its bound, the server says so at once, not only in its 503s.
        let warning = server.logLines().first { $0["event"] as? String == "memory_limit_reached" }
        #expect(warning?["level"] as? String == "warning")
        #expect(warning?["max_memory"] as? Int == 1_048_576)
        #expect((warning?["resident_bytes"] as? Int ?? 0) > 1_048_576)
        // Nothing was stored: a restart without the limit finds no session.
        let (again, _) = try data.startServer([], accessLog: true)
        #expect(try again.terminate() == 0)
        #expect(again.logLines().first { $0["event"] as? String == "storage" }?["sessions_loaded"] as? Int == 0)
    }

    @Test("Past --max-memory, creation and import get 503 while existing sessions work; freed memory lets them in again")
    func limitReachedAndFreed() throws {
        let data = DataDirectory()
        // The limit: what this server holds idle, and room for a few dozen large sessions.
        let (probe, _) = try data.startServer()
        let idle = try Self.residentBytes(probe)
        #expect(try probe.terminate() == 0)
        let limit = idle + (40 << 20)
        let (server, port) = try data.startServer(["--max-memory", String(limit)])
        let client = try HTTPConnection(port: port)
        let pad = String(repeating: "x", count: 800_000)
        var sessions: [CreatedSession] = []
        var refused: ClientResponse?
        for _ in 0..<200 {
            let response = try client.post("/v1/sessions", json: ["root": ["screen": "inbox", "params": ["pad": pad]]])
            guard response.status == 201 else {
                refused = response
                break
            }
            let json = try response.json()
            sessions.append(CreatedSession(id: json["id"] as? String ?? "", token: json["token"] as? String ?? "", body: response.body))
        }
        let problem = try #require(refused, "200 sessions of 800 KB did not reach a limit 40 MB above idle")
        #expect(problem.expectProblem(503, "memory_limit_reached")["limit"] as? Int == limit)
        #expect(problem.header("Retry-After") != nil)
        #expect(sessions.count >= 2, "the limit was reached at once: \(sessions.count) sessions")
        #expect(try Self.residentBytes(server) >= limit - (4 << 20), "refused well below the limit")
        // Existing sessions go on: read, changed, exported.
        let first = try #require(sessions.first)
        try client.post("push", to: first, json: ["screen": "next"]).expectSession(revision: 2)
        let export = try client.get(first.route("export"), token: first.token)
        #expect(export.status == 200)
        try client.post("/v1/sessions/import", bytes: export.body).expectProblem(503, "memory_limit_reached")
        // Deleted, the sessions free their memory, and a creation is let in again once the
        // server has measured it (at most a quarter of a second later).
        for session in sessions {
            #expect(try client.delete(session.route(), token: session.token).status == 204)
        }
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        var created = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
        while created.status == 503, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            created = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
        }
        #expect(created.status == 201, "no creation was let in again after every session was deleted: \(created.text)")
        #expect(try server.terminate() == 0)
    }
}
