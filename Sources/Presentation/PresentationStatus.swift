/// Where a presentation is in its life: open, or closed with or without a result.
public enum PresentationStatus: String, Hashable, Sendable {
    case presented
    /// Closed with a result, delivered to the screen that presented it.
    case dismissed
    /// Closed without a result: dismissed empty, swept away above another, or dropped by `setRoot`.
    case cancelled
}
