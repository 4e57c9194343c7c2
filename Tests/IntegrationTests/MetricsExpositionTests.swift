import Foundation
import Testing

/// `/metrics` is read by a scraper that drops a whole page for one bad line, so the page must be
/// valid text format 0.0.4 whatever the server has been sent and however it is configured, its
/// counters must never go down while it runs, and nothing a client sends may become a label.
@Suite("The metrics page after hostile traffic")
struct MetricsExpositionTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
    /// In every path and method sent, so that a label carrying any of them is found.
    static let marker = "zq"

    @Test("Under every option that adds a family, the page stays valid and its counters only grow", arguments: [
        ["--storage", "sqlite", "--create-rate-per-ip", "2", "--max-connections-per-ip", "20",
         "--trusted-proxies", "127.0.0.1", "--cors-origins", "*"],
        ["--storage", "memory", "--max-memory", "0"],
    ])
    func validAfterHostileTraffic(options: [String]) throws {
        let data = DataDirectory()
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--data-dir", data.path] + options, environment: ["ADMIN_TOKEN": Self.secret],
            accessLog: false)
        defer { _ = try? server.terminate() }
        let port = UInt16(try server.port())
        let first = try scrape(port)
        try hostileTraffic(port)
        let second = try scrape(port)
        try hostileTraffic(port)
        let third = try scrape(port)
        for page in [first, second, third] {
            #expect(page.problems.isEmpty, "\(page.problems)")
        }
        #expect(second.decreases(since: first).isEmpty && third.decreases(since: second).isEmpty)
        let labels = third.samples.keys.filter { $0.contains(Self.marker) || $0.contains("\u{9B}") }
        #expect(labels.isEmpty, "labels from the client's request: \(labels)")
        #expect(third.families["presentation_http_refused_total"] != nil && third.samples.count > first.samples.count)
    }

    private func scrape(_ port: UInt16) throws -> PrometheusExposition {
        let response = try HTTPConnection(port: port).get("/metrics", token: Self.secret)
        #expect(response.status == 200)
        let type = response.headers.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        #expect(type.hasPrefix("text/plain; version=0.0.4"), "\(type)")
        return PrometheusExposition(response.text)
    }

    /// Made-up methods and paths with what label values must escape, a wrong admin token,
    /// creations past the rate, forged forwarding, and each request libmicrohttpd refuses itself.
    private func hostileTraffic(_ port: UInt16) throws {
        let requests: [(String, String, [(String, String)])] = [
            ("GET", "/\(Self.marker)%22%5C%0A%C2%9B", []),
            ("\(Self.marker)\"\\", "/healthz", []),
            ("get", "/v1/sessions/\(Self.marker)", []),
            ("DELETE", "/metrics", []),
            ("OPTIONS", "/v1/sessions", [("Origin", "https://\(Self.marker).example"), ("Access-Control-Request-Method", "POST")]),
            ("GET", "/v1/sessions?limit=1", [("Authorization", "Bearer \(Self.secret)")]),
            ("GET", "/metrics", [("Authorization", "Bearer wrong-\(Self.marker)")]),
            ("GET", "/healthz", [("X-Forwarded-For", "\(Self.marker)\", 203.0.113.1\n")]),
        ]
        for (method, path, headers) in requests {
            let connection = try HTTPConnection(port: port)
            try connection.write(method, path, headers: headers + [("Connection", "close")])
            _ = try connection.readResponse(to: method)
        }
        for _ in 0..<3 {
            // Past the rate, where there is one: 429s.
            _ = try HTTPConnection(port: port).post(
                "/v1/sessions", json: ["root": ["screen": "inbox"]], headers: [("X-Forwarded-For", "203.0.113.2")])
        }
        for raw in [
            "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: \(String(repeating: "p", count: 20_000))\r\n\r\n",
            "GET /\(String(repeating: Self.marker, count: 10_000)) HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /healthz HTTP/2.5\r\nHost: a\r\n\r\n",
            "POST /v1/sessions HTTP/1.1\r\nHost: a\r\nContent-Length: \(Self.marker)\r\n\r\n",
        ] {
            let connection = try HTTPConnection(port: port)
            try connection.writeRaw(Array(raw.utf8))
            _ = try connection.readResponse()
        }
    }
}
