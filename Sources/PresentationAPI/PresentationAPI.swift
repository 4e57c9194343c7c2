#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
import JSON
public import MicroHTTP
public import Presentation
import Synchronization

/// The HTTP API of the presentation server: maps routes to domain operations.
///
/// Synchronous and thread-safe: libmicrohttpd's workers call `respond(to:)` at once; all
/// shared state is in the store (one lock per session) and in a few small mutexes.
public final class PresentationAPI: HTTPHandler {
    let store: any SessionStore
    let configuration: APIConfiguration
    let now: @Sendable () -> Date
    let parser: JSONParser
    /// For a batch, which holds each operation two levels down (`operations` and the
    /// operation's object): each gets the room its own route gives it. At the body's depth, a
    /// push's params within its limit were 400 `malformed_json` in a batch.
    let batchParser: JSONParser
    /// For a creation, which holds its root screen a level down (`root`): that screen gets
    /// the room a push's or a set-root's body gives it.
    let creationParser: JSONParser
    /// For an imported document, which holds what bodies sent (params, results, states) deeper
    /// than they were sent: under the document, its root stack and each presentation and its
    /// stack, a screen, and its result or state (`documentDepth`).
    let documentParser: JSONParser
    let heartbeat: Heartbeat
    /// Followed sessions whose ttl is too short for the heartbeat or a long poll's wait.
    let renewals: LeaseRenewals
    let creations: ReplyCache
    /// Nil unless `creationsPerMinutePerAddress` is set.
    let creationRate: CreationRateLimit?
    /// Each session's JSON by revision: a read of an unchanged session is a copy (docs/performance.md).
    let sessionJSON = SessionJSONCache(capacity: 8192)
    /// Event stream messages by revision, written once for all of a session's subscribers.
    let eventFrames = EventFrameCache()
    /// Each revision's stream messages while a resumed stream has them queued, shared by all.
    let eventRuns = EventRuns()
    /// Export documents being sent, shared by every export of their revision.
    let exports = ExportDocuments()
    /// Recorded answers of keyed changes being sent, shared by every retry of their change.
    let replayedAnswers = ReplayedAnswers()
    let staticFiles: StaticFiles?
    let metrics = RequestMetrics()
    private let draining = Atomic<Bool>(false)

    public init(
        store: any SessionStore,
        configuration: APIConfiguration = APIConfiguration(),
        staticFiles: StaticFiles? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.staticFiles = staticFiles
        self.configuration = configuration
        self.now = now
        // No bound on a string's length of their own: the body that holds it has one
        // (`--max-body-bytes`), and the session that keeps it another (`--max-session-bytes`).
        // The parser's default, 1 MiB, refused a longer string as malformed JSON (400) once
        // the body limit was raised past it, a limit no document names.
        parser = JSONParser(maxDepth: configuration.maxJSONDepth, maxStringBytes: .max)
        batchParser = JSONParser(maxDepth: configuration.maxJSONDepth + 2, maxStringBytes: .max)
        creationParser = JSONParser(maxDepth: configuration.maxJSONDepth + 1, maxStringBytes: .max)
        documentParser = JSONParser(
            maxDepth: Self.documentDepth(bodyDepth: configuration.maxJSONDepth, limits: store.limits),
            maxStringBytes: .max)
        heartbeat = Heartbeat(interval: configuration.heartbeatSeconds)
        renewals = LeaseRenewals(store: store)
        creations = ReplyCache(capacity: configuration.creationKeysKept, byteBudget: configuration.creationReplyBytesKept)
        creationRate = configuration.creationsPerMinutePerAddress.map {
            CreationRateLimit(perMinute: $0, now: now().timeIntervalSinceReferenceDate)
        }
    }

    /// The nesting an exported document may reach when every body that made its session was
    /// within `bodyDepth`: a value a body held at its second level (a push's params, a pop's
    /// result, a set-state's params) sits in the document under the document, the root stack,
    /// two levels for each presentation (it and its stack), the path, the screen and the
    /// screen's `result` or `state`: four levels deeper, and two more a presentation.
    static func documentDepth(bodyDepth: Int, limits: Limits) -> Int {
        bodyDepth + 4 + 2 * max(0, limits.maxPresentationDepth)
    }

    /// Open event streams, for metrics and tests.
    public var subscriberCount: Int { heartbeat.count }

    /// Sends every open event stream its keep-alive comment now, as the heartbeat's timer does
    /// each `heartbeatSeconds`: for tests that step a clock between beats.
    public func sendHeartbeat() {
        heartbeat.beat()
    }

    /// Starts a clean shutdown: readiness fails and event streams end, so the HTTP
    /// server's own shutdown finds nothing left parked.
    public func beginShutdown() {
        draining.store(true, ordering: .releasing)
        heartbeat.finishAll()
    }

    public func respond(to request: HTTPRequest) -> HTTPReply {
        let (reply, pattern) = route(request)
        switch reply.addingAbsent(configuration.cors.responseHeaders(for: request)) {
        case .now(var response):
            response.route = pattern
            return .now(response)
        case .later(let deferred):
            if let pattern { deferred.setRoute(pattern) }
            return .later(deferred)
        }
    }

    /// Counts an answered request for `/metrics`; the HTTP server's access hook calls it.
    public func record(_ access: HTTPAccessRecord) {
        let route = access.route ?? (access.status == .notFound ? "unmatched" : "other")
        metrics.record(method: access.method, route: route, status: access.status, duration: access.duration)
    }

    /// After a failed fsync the journal refuses every write until a restart, which is what the
    /// server needs: a health check that said ok would leave it up, answering 503 to every
    /// change, with nothing to tell an orchestrator to restart it.
    private func checkWritesGoOn() throws {
        if store.journalStatistics?.writesStopped == true {
            throw PresentationError.storageFailed("durable writes stopped after a failed flush to disk; restart the server")
        }
    }

    /// Counts a request libmicrohttpd answered itself (`LibraryMessage.refusal`) for
    /// `/metrics`: it never reached the handler, so the access hook never saw it.
    public func record(_ message: LibraryMessage) {
        if let status = message.refusal { metrics.recordRefusal(status: status) }
        if message.isFailedHandshake { metrics.recordFailedHandshake() }
    }

    /// The reply, and the pattern of the route that made it (nil when the path matched none).
    private func route(_ request: HTTPRequest) -> (HTTPReply, String?) {
        switch Route.table.match(request.method, request.path) {
        case .notFound:
            if request.method == .get || request.method == .head, let file = staticFiles?.response(for: request) {
                // The refusals come without a body: the problem this API writes, with their headers.
                let refusal: APIError
                switch file.status {
                case .preconditionFailed: refusal = .fileChanged
                case .serviceUnavailable: refusal = .fileUnavailable
                default: return (.now(file), nil)
                }
                var problem = ProblemDetails(for: refusal).response
                for field in file.headers { problem.headers.set(field.name, field.value) }
                return (.now(problem), nil)
            }
            // A file is a resource that takes GET and HEAD: another method is 405, as on API routes.
            if staticFiles?.serves(request.path) == true { return (methodNotAllowed([.get, .head], request), nil) }
            return (.now(ProblemDetails(for: APIError.routeNotFound(request.path)).response), nil)
        case .methodNotAllowed(let allowed):
            guard let visible = visibleMethods(allowed, path: request.path) else {
                return (.now(ProblemDetails(for: APIError.routeNotFound(request.path)).response), nil)
            }
            return (methodNotAllowed(visible, request), nil)
        case .found(let route, let parameters):
            let reply: HTTPReply
            do {
                reply = try respond(to: route, parameters: parameters, request: request)
            } catch {
                reply = .now(ProblemDetails(for: error).response)
            }
            // The events route answers a stream or a listing by `Accept`, and refuses by it too
            // (a stream resumes where a listing is 410): every answer says so (RFC 9110 12.5.5).
            return (route == .events ? reply.addingAbsent(["Vary": "Accept"]) : reply, parameters.pattern)
        }
    }

    /// 405 with `Allow`; for OPTIONS, 204 with `Allow` and, for an allowed origin, the CORS preflight.
    private func methodNotAllowed(_ allowed: [HTTPMethod], _ request: HTTPRequest) -> HTTPReply {
        if request.method == .options {
            var headers = configuration.cors.preflightHeaders(for: request, allowed: allowed)
            headers.set("Allow", (allowed + [.options]).map(\.rawValue).joined(separator: ", "))
            return .now(HTTPResponse(status: .noContent, headers: headers))
        }
        return .now(ProblemDetails(for: APIError.methodNotAllowed(allowed)).response)
    }

    /// A refusal carries the CORS headers every answer does, so that a page of an allowed
    /// origin reads the problem (a 413) rather than a network error.
    public func response(for refusal: HTTPRefusal, requestHeaders: HTTPHeaders) -> HTTPResponse {
        var response =
            switch refusal {
            case .bodyTooLarge(let limit): ProblemDetails(for: APIError.bodyTooLarge(limit: limit)).response
            case .bodyBufferFull(let limit): ProblemDetails(for: APIError.bodyBufferFull(limit: limit)).response
            case .shuttingDown: ProblemDetails(for: APIError.shuttingDown).response
            case .invalidHeader(let name, let reason):
                ProblemDetails(for: APIError.invalidHeader(name: name, reason: reason)).response
            case .headersTooLarge(let limit): ProblemDetails(for: APIError.headersTooLarge(limit: limit)).response
            }
        response.headers.addAbsent(configuration.cors.responseHeaders(origin: requestHeaders["Origin"]))
        return response
    }

    private func respond(to route: Route, parameters: RouteParameters, request: HTTPRequest) throws -> HTTPReply {
        let id = parameters["id"] ?? ""
        switch route {
        case .health:
            try checkWritesGoOn()
            return .now(.json(Array(#"{"status":"ok"}"#.utf8)))
        case .ready:
            if draining.load(ordering: .acquiring) { throw APIError.shuttingDown }
            try checkWritesGoOn()
            return .now(.json(Array(#"{"status":"ok"}"#.utf8)))
        case .metrics:
            try authorizeAdmin(request)
            return .now(metricsResponse())
        case .listSessions:
            // Without admin, this path is creation's alone, as it was before listing existed.
            guard configuration.adminToken != nil else { throw APIError.methodNotAllowed([.post]) }
            try authorizeAdmin(request)
            return .now(try listSessions(request))
        case .rotateToken:
            return try rotateToken(id, request)
        case .createSession:
            return try createSession(request)
        case .session:
            return .now(try getSession(id, request))
        case .deleteSession:
            return try deleteSession(id, request)
        case .exportSession:
            return .now(try exportSession(id, request))
        case .importSession:
            return try importSession(request)
        case .operation(let kind):
            // A request without a token learns nothing, not even whether its body was valid.
            let token = try presentedDigest(request)
            let step: Step
            if let plain = plainStep(kind, request) {
                step = plain
            } else {
                var fields = try bodyFields(of: request, allowEmpty: kind.allowsEmptyBody)
                step = try OperationDecoding.step(kind, from: &fields)
            }
            return try mutate(id, .one(step), request, token: token, route: kind.rawValue)
        case .batch:
            let token = try presentedDigest(request)
            var fields = try bodyFields(of: request, allowEmpty: false, parser: batchParser)
            let steps = try OperationDecoding.batch(from: &fields, limit: store.limits.maxBatchSteps)
            return try mutate(id, .batch(steps), request, token: token, route: "batch", parser: batchParser)
        case .presentation:
            return try presentationStatus(id, parameters["pid"] ?? "", request)
        case .events:
            return try events(id, request)
        }
    }
}

extension HTTPResponse {
    /// A JSON answer that no cache should keep: navigation state is always live.
    static func json(_ body: [UInt8], status: HTTPStatus = .ok, revision: Int? = nil) -> HTTPResponse {
        json(body: .bytes(body), status: status, revision: revision)
    }

    /// The same for a session's JSON as the cache keeps it (`SessionJSONCache`), sent without a copy.
    static func json(_ json: SharedBytes, revision: Int) -> HTTPResponse {
        self.json(body: .shared(json), status: .ok, revision: revision)
    }

    /// The same for JSON made of runs sent one after another (a head of this answer's own
    /// around a session's JSON as the cache keeps it), none of them copied.
    static func json(_ runs: [SharedBytes], revision: Int) -> HTTPResponse {
        json(body: .pieces(runs), status: .ok, revision: revision)
    }

    /// A new session's answer: 201, its JSON and where it lives.
    static func created(_ body: [UInt8], revision: Int, location: String) -> HTTPResponse {
        HTTPResponse(
            status: .created,
            headers: HTTPHeaders(fields: [
                jsonType, noStore, (name: "ETag", value: ETag.value(for: revision)), (name: "Location", value: location),
            ]),
            body: .bytes(body))
    }

    static func json(body: Body, status: HTTPStatus, revision: Int?) -> HTTPResponse {
        // One array literal, allocated once: nearly every answer comes through here.
        let fields = revision.map { [jsonType, noStore, (name: "ETag", value: ETag.value(for: $0))] } ?? [jsonType, noStore]
        return HTTPResponse(status: status, headers: HTTPHeaders(fields: fields), body: body)
    }

    // Computed, so each answer's array is built from literals with no global to check first.
    private static var jsonType: HTTPHeaders.Field { (name: "Content-Type", value: "application/json") }
    private static var noStore: HTTPHeaders.Field { (name: "Cache-Control", value: "no-store") }
}
