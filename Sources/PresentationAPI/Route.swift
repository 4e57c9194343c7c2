import MicroHTTP

/// Every route of the API: the contract clients use (docs/api.md), in one table.
enum Route: Sendable {
    case health
    case ready
    case createSession
    case session
    case deleteSession
    case exportSession
    case importSession
    case operation(OperationKind)
    case batch
    case presentation
    case events

    static let table: Router<Route> = {
        var router = Router<Route>()
        router.add(.get, "/healthz", .health)
        router.add(.get, "/readyz", .ready)
        router.add(.post, "/v1/sessions", .createSession)
        router.add(.post, "/v1/sessions/import", .importSession)
        router.add(.get, "/v1/sessions/{id}", .session)
        router.add(.delete, "/v1/sessions/{id}", .deleteSession)
        for kind in OperationKind.allCases {
            router.add(.post, "/v1/sessions/{id}/\(kind.rawValue)", .operation(kind))
        }
        router.add(.post, "/v1/sessions/{id}/batch", .batch)
        router.add(.get, "/v1/sessions/{id}/presentations/{pid}", .presentation)
        router.add(.get, "/v1/sessions/{id}/events", .events)
        router.add(.get, "/v1/sessions/{id}/export", .exportSession)
        return router
    }()
}
