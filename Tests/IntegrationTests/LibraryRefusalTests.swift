import MicroHTTP
import Presentation
import PresentationAPI
import Testing

/// The refusals libmicrohttpd sends itself, before any handler runs, as docs/api.md ("Errors")
/// describes them: headers past a connection's memory get 431, a request line past it 414.
@Suite("Refusals libmicrohttpd answers itself")
struct LibraryRefusalTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"

    @Test("A request line that does not fit the connection's memory gets the status docs/api.md names")
    func overlongRequestLine() throws {
        try withServer { server in
            let client = try server.connect()
            let refused = try client.get("/v1/sessions/" + String(repeating: "a", count: 20_000))
            #expect(refused.status == 414)
            #expect(client.isClosed)
            #expect(try server.connect().get("/healthz").status == 200)
        }
    }

    /// libmicrohttpd reads `Content-Length` as an unsigned 64-bit number before any handler
    /// runs: one that does not fit (20 digits past 18446744073709551615) it refuses itself
    /// with 413 and its own HTML, not the server's `body_too_large` problem, which every
    /// length that does fit gets (LimitTests). docs/api.md ("Errors") names both.
    @Test("A Content-Length past 2^64 - 1 gets libmicrohttpd's own 413, counted among its refusals")
    func contentLengthPastSixtyFourBits() throws {
        let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret))
        try withServer(api: api) { server in
            let client = try server.connect()
            try client.writeRaw(
                Array("POST /v1/sessions HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n".utf8))
            let refused = try client.readResponse()
            #expect(refused.status == 413)
            #expect(refused.header("Content-Type") != "application/problem+json")
            let text = try server.connect().get("/metrics", token: Self.secret).text
            #expect(metricSamples(text)["presentation_http_refused_total{status=\"413\"}"] == 1)
        }
    }

    /// Such a request never reaches the handler, so the access hook never counts it: without
    /// this family a flood of 431s (a client's cookies grown past 16 KB) left no trace in
    /// `/metrics`.
    @Test("/metrics counts each refusal libmicrohttpd sends, by status, and nowhere else")
    func refusalsAreCounted() throws {
        let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret))
        try withServer(api: api) { server in
            let refusals: [(expected: Int, request: [UInt8])] = [
                (431, Array("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: \(String(repeating: "p", count: 20_000))\r\n\r\n".utf8)),
                (414, Array("GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: a\r\n\r\n".utf8)),
                (505, Array("GET /healthz HTTP/2.5\r\nHost: a\r\n\r\n".utf8)),
                (400, Array("POST /v1/sessions HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n".utf8)),
                (400, Array("POST /v1/sessions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8)),
            ]
            for (expected, request) in refusals {
                let client = try server.connect()
                try client.writeRaw(request)
                #expect(try client.readResponse().status == expected)
            }
            let admin = try server.connect()
            #expect(try admin.get("/healthz").status == 200)
            let text = try admin.get("/metrics", token: Self.secret).text
            let samples = metricSamples(text)
            #expect(samples["presentation_http_refused_total{status=\"400\"}"] == 2)
            #expect(samples["presentation_http_refused_total{status=\"414\"}"] == 1)
            #expect(samples["presentation_http_refused_total{status=\"431\"}"] == 1)
            #expect(samples["presentation_http_refused_total{status=\"505\"}"] == 1)
            #expect(text.contains("# TYPE presentation_http_refused_total counter"))
            let answered = samples.filter { $0.key.hasPrefix("presentation_http_requests_total{") }
            #expect(answered.keys.allSatisfy { !$0.contains("status=\"4") && !$0.contains("status=\"5") }, "\(answered)")
            #expect(answered.values.reduce(0, +) == 1, "the one /healthz before the scrape: \(answered)")
        }
    }

    @Test("Before any refusal the family is there with no sample")
    func noRefusalNoSample() throws {
        let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret))
        try withServer(api: api) { server in
            let text = try server.connect().get("/metrics", token: Self.secret).text
            #expect(text.contains("# TYPE presentation_http_refused_total counter"))
            #expect(!text.contains("presentation_http_refused_total{"))
        }
    }
}

/// Which of libmicrohttpd's messages report a request it answered itself.
@Suite("libmicrohttpd's messages")
struct LibraryMessageTests {
    @Test(
        "A refusal's status is read from the message of each release's wording",
        arguments: [
            // 0.9.75, as this server's tests see it.
            ("Error processing request (HTTP response code is 431 ('<html>...</html>')). Closing connection.", 431),
            // Earlier releases quoted with a backquote.
            ("Error processing request (HTTP response code is 414 (`<html>...</html>')). Closing connection.", 414),
            ("Error processing request (HTTP response code is 505 ('')). Closing connection.", 505),
            ("Error processing request (HTTP response code is 400", 400),
        ])
    func refusal(text: String, status: Int) {
        #expect(LibraryMessage(text).refusal == HTTPStatus(rawValue: status))
        #expect(LibraryMessage(text).text == text)
    }

    @Test(
        "Other messages carry no status",
        arguments: [
            "Failed to parse `Content-Length' header. Closing connection.",
            "Error processing request (HTTP response code is 43 ('x')).",
            "Error processing request (HTTP response code is 4310 ('x')).",
            "Error processing request (HTTP response code is 200 ('x')).",
            "Error processing request (HTTP response code is ",
            "error processing request (HTTP response code is 431",
            " Error processing request (HTTP response code is 431",
            "",
        ])
    func notARefusal(text: String) {
        #expect(LibraryMessage(text).refusal == nil)
    }

    @Test("A failed TLS handshake is told by libmicrohttpd's one text for it, and nothing else is")
    func failedHandshake() {
        #expect(LibraryMessage("Error: received handshake message out of context.").isFailedHandshake)
        #expect(!LibraryMessage("Error processing request (HTTP response code is 400 ('x')).").isFailedHandshake)
        #expect(!LibraryMessage("Error: received handshake message out of context").isFailedHandshake)
    }
}
