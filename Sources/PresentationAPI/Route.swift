import MicroHTTP

/// Every route of the API: the contract clients use (docs/api.md), in one table.
enum Route: Hashable, Sendable {
    case health
    case ready
    case metrics
    case createSession
    case listSessions
    case session
    case deleteSession
    case exportSession
    case importSession
    case rotateToken
    case operation(OperationKind)
    case batch
    case presentation
    case events

    static let table: Router<Route> = {
        var router = Router<Route>()
        for route in all {
            router.add(route.method, route.pattern, route)
        }
        return router
    }()

    static let all: [Route] =
        [.health, .ready, .metrics, .createSession, .listSessions, .importSession, .session, .deleteSession, .rotateToken]
        + OperationKind.allCases.map(Route.operation) + [.batch, .presentation, .events, .exportSession]

    var method: HTTPMethod {
        switch self {
        case .health, .ready, .metrics, .listSessions, .session, .presentation, .events, .exportSession: .get
        case .createSession, .importSession, .rotateToken, .operation, .batch: .post
        case .deleteSession: .delete
        }
    }

    /// The path pattern; also the `route` label of request metrics, which must not carry ids.
    var pattern: String {
        switch self {
        case .health: "/healthz"
        case .ready: "/readyz"
        case .metrics: "/metrics"
        case .createSession, .listSessions: "/v1/sessions"
        case .session, .deleteSession: "/v1/sessions/{id}"
        case .importSession: "/v1/sessions/import"
        case .exportSession: "/v1/sessions/{id}/export"
        case .rotateToken: "/v1/sessions/{id}/token"
        case .operation(let kind): "/v1/sessions/{id}/\(kind.rawValue)"
        case .batch: "/v1/sessions/{id}/batch"
        case .presentation: "/v1/sessions/{id}/presentations/{pid}"
        case .events: "/v1/sessions/{id}/events"
        }
    }
}
