/// A request the server answers before the handler sees it.
public enum HTTPRefusal: Sendable, Hashable {
    /// The body is larger than `maxBodyBytes`; it is not read.
    case bodyTooLarge(limit: Int)
    /// The server is stopping; a parked request is released with this.
    case shuttingDown
}
