import Presentation

/// The operations a client can name, as they appear in routes and in batch `op` fields.
enum OperationKind: String, CaseIterable, Sendable {
    case push
    case pop
    case popToRoot = "pop-to-root"
    case popTo = "pop-to"
    case replace
    case present
    case dismiss
    case emit
    case setRoot = "set-root"
    case setState = "set-state"

    /// Whether the route accepts an empty body (curl -X POST with nothing).
    var allowsEmptyBody: Bool {
        switch self {
        case .pop, .popToRoot, .dismiss: true
        case .push, .popTo, .replace, .present, .emit, .setRoot, .setState: false
        }
    }
}
