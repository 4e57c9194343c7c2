import Foundation
import Presentation
import PresentationAPI
import Testing

/// The administrator's routes: the session listing and Prometheus metrics.
@Suite("Administration")
struct AdminTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
    static let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: secret))

    @Test("Without an admin token configured the admin routes do not exist")
    func offByDefault() throws {
        try withServer { server in
            let client = try server.connect()
            try client.get("/metrics", token: Self.secret).expectProblem(404, "not_found")
            let listing = try client.get("/v1/sessions", token: Self.secret)
            listing.expectProblem(405, "method_not_allowed")
            #expect(listing.header("Allow") == "POST, OPTIONS")
        }
    }

    /// "As if they were not there" holds for every method: an OPTIONS or a PUT that listed
    /// GET on these paths would tell of routes that a GET then says do not exist.
    @Test("Without an admin token, other methods do not reveal the admin routes either")
    func offByDefaultForOtherMethods() throws {
        try withServer { server in
            let client = try server.connect()
            try client.request("OPTIONS", "/metrics").expectProblem(404, "not_found")
            try client.request("PUT", "/metrics").expectProblem(404, "not_found")
            let options = try client.request("OPTIONS", "/v1/sessions")
            #expect(options.status == 204)
            #expect(options.header("Allow") == "POST, OPTIONS")
            let put = try client.request("PUT", "/v1/sessions")
            put.expectProblem(405, "method_not_allowed")
            #expect(put.header("Allow") == "POST, OPTIONS")
        }
    }

    /// The router takes `/metrics/` and `/v1%2Fsessions%2F` (decoded to `/v1/sessions/`) as the
    /// same routes, so they must hide as the plain spellings do.
    @Test("Without an admin token, a trailing or encoded slash does not reveal the admin routes")
    func offByDefaultForOtherSpellings() throws {
        try withServer { server in
            let client = try server.connect()
            for path in ["/metrics/", "/metrics%2F"] {
                try client.get(path).expectProblem(404, "not_found")
                try client.request("OPTIONS", path).expectProblem(404, "not_found")
                try client.request("PUT", path).expectProblem(404, "not_found")
            }
            for path in ["/v1/sessions/", "/v1%2Fsessions%2F"] {
                #expect(try client.get(path).header("Allow") == "POST, OPTIONS")
                let options = try client.request("OPTIONS", path)
                #expect(options.status == 204)
                #expect(options.header("Allow") == "POST, OPTIONS")
                let put = try client.request("PUT", path)
                put.expectProblem(405, "method_not_allowed")
                #expect(put.header("Allow") == "POST, OPTIONS")
            }
        }
    }

    @Test("Admin routes refuse no token, a wrong one and a session's token")
    func refused() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            for path in ["/metrics", "/v1/sessions"] {
                try client.get(path).expectProblem(401, "unauthorized")
                try client.get(path, token: Self.secret + "x").expectProblem(401, "unauthorized")
                try client.get(path, token: session.token).expectProblem(401, "unauthorized")
            }
            // Nor does the admin token open a session: it is not that session's token.
            try client.get(session.route(), token: Self.secret).expectProblem(401, "unauthorized")
        }
    }

    /// A request with two Authorization fields is refused as malformed on every route that
    /// reads a token (docs/api.md): the admin's routes read it as the session routes do.
    @Test("Admin routes refuse two Authorization fields as 400 invalid_header, whichever holds the admin token")
    func twoAuthorizationFields() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let admin = ("Authorization", "Bearer \(Self.secret)")
            let other = ("Authorization", "Bearer other")
            for path in ["/metrics", "/v1/sessions"] {
                for pair in [[admin, admin], [admin, other], [other, admin]] {
                    let problem = try client.get(path, headers: pair).expectProblem(400, "invalid_header")
                    #expect((problem["detail"] as? String)?.contains("Authorization") == true)
                }
                #expect(try client.get(path, token: Self.secret).status == 200)
            }
        }
    }

    @Test("The listing pages through every session once, in id order")
    func listing() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let created = try (0..<5).map { _ in try client.createSession().id }
            var seen: [String] = []
            var after: String?
            var pages = 0
            repeat {
                let query = "limit=2" + (after.map { "&after=\($0)" } ?? "")
                let page = try client.get("/v1/sessions?\(query)", token: Self.secret).json()
                #expect(page.int("count") == 5)
                let ids = page.objects("sessions").compactMap { $0.string("id") }
                #expect(ids.count <= 2 && !ids.isEmpty)
                seen += ids
                after = page["next"] as? String
                pages += 1
            } while after != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == created.sorted())
            try client.get("/v1/sessions?limit=0", token: Self.secret).expectProblem(400, "invalid_query")
            try client.get("/v1/sessions?limit=%2B2", token: Self.secret).expectProblem(400, "invalid_query")
            try client.get("/v1/sessions?after=%20", token: Self.secret).expectProblem(400, "invalid_query")
        }
    }

    @Test("Metrics count requests by route and status, and report sessions and subscribers")
    func metrics() throws {
        try withServer(api: Self.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            for _ in 0..<3 { try client.post("push", to: session, json: ["screen": "detail"]).expectSession() }
            try client.post("pop-to", to: session, json: ["screen": "nope"]).expectProblem(404, "screen_not_found")
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            let response = try client.get("/metrics", token: Self.secret)
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = metricSamples(response.text)
            let push = #"presentation_http_requests_total{method="POST",route="/v1/sessions/{id}/push",status="200"}"#
            #expect(samples[push] == 3)
            let failed = #"presentation_http_requests_total{method="POST",route="/v1/sessions/{id}/pop-to",status="404"}"#
            #expect(samples[failed] == 1)
            #expect(samples[#"presentation_http_request_duration_seconds_count{route="/v1/sessions/{id}/push"}"#] == 3)
            #expect(samples[#"presentation_http_request_duration_seconds_bucket{route="/v1/sessions/{id}/push",le="+Inf"}"#] == 3)
            #expect(samples["presentation_sessions"] == 1)
            #expect(samples["presentation_event_subscribers"] == 1)
            #expect(!response.text.contains(session.id), "labels must not carry ids")
            #expect(!response.text.contains("presentation_storage_"), "a store in memory has no storage figures")
            #expect(samples["presentation_memory_limit_bytes"] == nil, "this store has no memory bound")
            #expect(samples["process_resident_memory_bytes", default: 0] > 0)
        }
    }
}
