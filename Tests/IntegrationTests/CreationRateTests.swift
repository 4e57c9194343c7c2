import Foundation
import Presentation
import PresentationAPI
import Testing

/// `--create-rate-per-ip`: how many sessions one client address may create or import a minute.
@Suite("Creation rate per address")
struct CreationRateTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
    /// 127.0.0.2: a second client, at another loopback address.
    static let otherAddress: UInt32 = 0x7f00_0002

    static func api(perMinute: Int) -> APIConfiguration {
        APIConfiguration(adminToken: SessionTokenDigest(hashing: secret), creationsPerMinutePerAddress: perMinute)
    }

    /// Sessions the server holds, from the admin listing.
    static func sessionCount(_ client: HTTPConnection) throws -> Int {
        let listing = try client.get("/v1/sessions?limit=1000", token: secret)
        #expect(listing.status == 200)
        return (try listing.json()["sessions"] as? [Any])?.count ?? -1
    }

    @Test("Past its allowance an address gets 429 with Retry-After and creates nothing; another address, and time, get more")
    func allowance() throws {
        let clock = TestClock()
        try withServer(api: Self.api(perMinute: 3), clock: clock) { server in
            let client = try server.connect()
            let original = try client.createSession()
            for _ in 0..<2 { _ = try client.createSession() }
            let refused = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]])
            let problem = refused.expectProblem(429, "rate_limited")
            #expect(problem["limit"] as? Int == 3)
            // Three a minute: one every 20 s.
            #expect(refused.header("Retry-After") == "20")
            // An import is a creation too.
            let export = try client.get(original.route("export"), token: original.token)
            try client.post("/v1/sessions/import", bytes: export.body).expectProblem(429, "rate_limited")
            #expect(try Self.sessionCount(client) == 3)

            // Another address has its own allowance.
            let other = try HTTPConnection(port: server.port, source: Self.otherAddress)
            _ = try other.createSession()
            #expect(try Self.sessionCount(client) == 4)

            // Time refills the first address's allowance one creation at a time.
            clock.advance(by: 15)
            #expect(try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).header("Retry-After") == "5")
            clock.advance(by: 5)
            #expect(try client.post("/v1/sessions/import", bytes: export.body).status == 201)
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(429, "rate_limited")
            #expect(try Self.sessionCount(client) == 5)
            // Existing sessions are not limited: only creation is.
            try client.post("push", to: original, json: ["screen": "thread"]).expectSession(revision: 2)
            // Two addresses kept, none let through uncounted; refusals are counted by status.
            let metrics = metricSamples(try client.get("/metrics", token: Self.secret).text)
            #expect(metrics["presentation_creation_rate_addresses"] == 2)
            #expect(metrics["presentation_creation_rate_untracked_total"] == 0)
            #expect(metrics[#"presentation_http_requests_total{method="POST",route="/v1/sessions",status="429"}"#] == 3)
            #expect(metrics[#"presentation_http_requests_total{method="POST",route="/v1/sessions/import",status="429"}"#] == 1)
        }
    }

    @Test("A replayed creation and a refused body cost nothing of the allowance")
    func onlyCreationsCount() throws {
        try withServer(api: Self.api(perMinute: 2), clock: TestClock()) { server in
            let client = try server.connect()
            let key = [("Idempotency-Key", "create-once")]
            let first = try client.createSession(headers: key)
            let replay = try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]], headers: key)
            #expect(replay.status == 201 && replay.header("Idempotent-Replayed") == "true")
            #expect(try replay.json()["id"] as? String == first.id)
            try client.post("/v1/sessions", json: ["root": [:]]).expectProblem(422, "missing_field")
            _ = try client.createSession()
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(429, "rate_limited")
            #expect(try Self.sessionCount(client) == 2)
        }
    }

    @Test("A creation or import heavier than --max-session-bytes is a refused body: it costs nothing, with a key or without")
    func tooHeavyCostsNothing() throws {
        let limits = Limits(maxSessionBytes: 1_000)
        try withServer(limits: limits, api: Self.api(perMinute: 1), clock: TestClock()) { server in
            let client = try server.connect()
            let heavy: [String: Any] = ["root": ["screen": "inbox", "params": ["pad": String(repeating: "x", count: 1_000)]]]
            try client.post("/v1/sessions", json: heavy).expectProblem(422, "session_too_large")
            try client.post("/v1/sessions", json: heavy, headers: [("Idempotency-Key", "heavy")])
                .expectProblem(422, "session_too_large")
            // An import as heavy costs nothing either (ImportRateTests): the two are one rule.
            try withServer { roomy in
                let other = try roomy.connect()
                let large = try other.createSession()
                try other.post("push", to: large, json: heavy["root"]!).expectSession(revision: 2)
                let document = try other.get(large.route("export"), token: large.token)
                try client.post("/v1/sessions/import", bytes: document.body).expectProblem(422, "session_too_large")
            }
            _ = try client.createSession()
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(429, "rate_limited")
        }
    }

    @Test("A creation the server's own limits refuse still counted against the rate")
    func refusedByTheServerCounts() throws {
        try withServer(limits: Limits(maxSessions: 1), api: Self.api(perMinute: 2), clock: TestClock()) { server in
            let client = try server.connect()
            _ = try client.createSession()
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "too_many_sessions")
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(429, "rate_limited")
        }
    }

    @Test("Without the setting, one address creates as many sessions as the server holds")
    func offByDefault() throws {
        try withServer(limits: Limits(maxSessions: 50)) { server in
            let client = try server.connect()
            for _ in 0..<50 { _ = try client.createSession() }
            try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "too_many_sessions")
        }
    }
}
