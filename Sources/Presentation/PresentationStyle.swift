/// How a presentation is shown; only `alert` holds an alert instead of a stack.
public enum PresentationStyle: String, CaseIterable, Hashable, Sendable {
    case modal
    case sheet
    case fullScreen
    case popover
    case alert
}
