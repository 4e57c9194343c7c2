import JSON
import MicroHTTP
import Presentation

/// The administrator's routes: the session listing and metrics. Off unless an admin token is configured.
extension PresentationAPI {
    /// The largest page of the session listing.
    static let maxListingPage = 1000

    func authorizeAdmin(_ request: HTTPRequest) throws {
        // Without an admin token the routes do not exist, rather than exist behind a lock nobody holds.
        guard let admin = configuration.adminToken else { throw APIError.routeNotFound(request.path) }
        // Two Authorization fields are refused as on any route (400), not read as a wrong token.
        let presented: SessionTokenDigest
        do {
            presented = try presentedDigest(request)
        } catch .unauthorized {
            throw APIError.adminUnauthorized
        }
        guard admin.matches(presented) else { throw APIError.adminUnauthorized }
    }

    /// The methods a path that matched with other methods takes, as a client may learn them
    /// (405's `Allow`, OPTIONS): without an admin token the admin routes are absent for every
    /// method, as they are for GET, so `/metrics` is no route at all (nil) and `/v1/sessions`
    /// creation's alone. Only refusals and OPTIONS come here, never a request that matched.
    func visibleMethods(_ allowed: [HTTPMethod], path: String) -> [HTTPMethod]? {
        guard configuration.adminToken == nil else { return allowed }
        // Judged by the route a GET of the path finds, not by its spelling: `/metrics/` and
        // `/v1%2Fsessions` reach the same routes, and compared as text they told of them.
        guard case .found(let route, _) = Route.table.match(.get, path) else { return allowed }
        switch route {
        case .metrics: return nil
        case .listSessions: return allowed.filter { $0 != .get && $0 != .head }
        default: return allowed
        }
    }

    /// `GET /v1/sessions?after=ID&limit=N`: a page of sessions in id order, with the id to continue from.
    func listSessions(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try integerQuery("limit", request, in: 1...Self.maxListingPage) ?? 100
        let after = request.queryValue("after")
        // Judged by its presence, as `limit` is: a bare `?after` has no value, and read as
        // absent it restarted the walk from the first page, so a client that lost its cursor
        // on the way went round and round without being told.
        if request.hasQuery("after"), !(after.map(SessionID.hasShape) ?? false) {
            throw APIError.invalidQuery(name: "after", reason: "expected a session id")
        }
        // One more than asked tells whether another page follows.
        let page = store.sessions(after: after, limit: limit + 1)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sessions")
        writer.beginArray()
        for session in page.prefix(limit) {
            writer.write(summary: session)
        }
        writer.endArray()
        writer.key("next")
        writer.writeOptional(page.count > limit ? page[limit - 1].id.rawValue : nil)
        writer.key("count")
        writer.writeInt(store.count)
        writer.endObject()
        return .json(writer.bytes)
    }

    func metricsResponse() -> HTTPResponse {
        let (requests, latencies) = metrics.snapshot()
        var text = PrometheusText()
        text.family("presentation_http_requests_total", type: "counter", help: "Answered HTTP requests by method, route and status.")
        for (key, count) in requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            text.sample(
                "presentation_http_requests_total",
                [("method", key.method), ("route", key.route), ("status", String(key.status))], Double(count))
        }
        text.family(
            "presentation_http_refused_total", type: "counter",
            help: "Requests libmicrohttpd answered itself, by status: a request line or headers too large (414, 431), a Content-Length past 64 bits (413), an HTTP version it does not speak (505), a malformed header or chunk (400).")
        for (status, count) in metrics.refusalCounts().sorted(by: { $0.key < $1.key }) {
            text.sample("presentation_http_refused_total", [("status", String(status))], Double(count))
        }
        text.single(
            "presentation_tls_handshakes_failed_total", type: "counter",
            help: "TLS handshakes that failed (plain HTTP to the HTTPS port, a client refusing the certificate, one cut short); 0 without TLS.",
            Double(metrics.failedHandshakeCount))
        text.family(
            "presentation_http_request_duration_seconds", type: "histogram",
            help: "Time from the request's headers to its answer being queued.")
        for (route, histogram) in latencies.sorted(by: { $0.key < $1.key }) {
            var cumulative = 0
            for (index, bound) in (RequestMetrics.bucketBounds + [.infinity]).enumerated() {
                cumulative += histogram.buckets[index]
                text.sample(
                    "presentation_http_request_duration_seconds_bucket",
                    [("route", route), ("le", PrometheusText.format(bound))], Double(cumulative))
            }
            text.sample("presentation_http_request_duration_seconds_sum", [("route", route)], histogram.sum)
            text.sample("presentation_http_request_duration_seconds_count", [("route", route)], Double(histogram.count))
        }
        text.single("presentation_sessions", type: "gauge", help: "Sessions held, expired ones the sweep has not freed yet included.", Double(store.count))
        text.single("presentation_event_subscribers", type: "gauge", help: "Open Server-Sent Events streams.", Double(heartbeat.count))
        if let budget = store.memoryBudget {
            text.single(
                "presentation_memory_limit_bytes", type: "gauge",
                help: "Resident bytes past which new sessions are refused (--max-memory); compare process_resident_memory_bytes.",
                Double(budget.limit))
        }
        if let budget = store.writeBudget, store.journalStatistics != nil {
            text.single(
                "presentation_write_rate_sessions", type: "gauge",
                help: "Sessions whose writes --max-session-write-rate counts now, some of them caught up.",
                Double(budget.trackedSessions))
        }
        if let creationRate {
            let (tracked, untracked) = creationRate.counts
            text.single(
                "presentation_creation_rate_addresses", type: "gauge",
                help: "Client addresses the creation rate limit keeps a bucket for (at most 100000).", Double(tracked))
            text.single(
                "presentation_creation_rate_untracked_total", type: "counter",
                help: "Creations let through uncounted because the creation rate limit kept its most addresses.",
                Double(untracked))
        }
        if let connections = configuration.connectionsPerAddress {
            let (clients, refused) = connections.counts
            text.single(
                "presentation_connection_clients", type: "gauge",
                help: "Clients (an IPv6 client by its /64) holding a connection open, counted for --max-connections-per-ip.",
                Double(clients))
            text.single(
                "presentation_connections_refused_per_client_total", type: "counter",
                help: "Connections closed at once because their client held --max-connections-per-ip already.",
                Double(refused))
        }
        if let bodies = configuration.bufferedBodies {
            let (held, refused) = bodies.counts
            text.single(
                "presentation_http_buffered_body_bytes", type: "gauge",
                help: "Bytes of request bodies held while they arrive, over all connections (at most --max-buffered-body-bytes).",
                Double(held))
            text.single(
                "presentation_http_body_buffer_full_total", type: "counter",
                help: "Request bodies dropped, and answered 503 body_buffer_full, because the bodies arriving at once held --max-buffered-body-bytes.",
                Double(refused))
        }
        if let storage = store.journalStatistics {
            text.add(storage)
        }
        text.add(ProcessStatistics.read())
        return HTTPResponse(
            status: .ok,
            headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            bytes: Array(text.text.utf8))
    }
}

extension JSONWriter {
    /// A session in the administrator's listing: what it is and how recently it was used, not its tree.
    fileprivate mutating func write(summary session: Session) {
        beginObject()
        writeIdentity(of: session)
        key("top")
        writeString(session.top.screen.rawValue)
        endObject()
    }
}
