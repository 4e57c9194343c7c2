/// A request the server answers before the handler sees it.
public enum HTTPRefusal: Sendable, Hashable {
    /// The body is larger than `maxBodyBytes`; it is not kept, and is read to its end first
    /// unless it is past what `RefusedBodyDrain` reads.
    case bodyTooLarge(limit: Int)
    /// The bodies being received at once hold `BufferedBodies.limit` (`limit`): the rest of
    /// this one is not kept, and a retry once others have arrived may pass.
    case bodyBufferFull(limit: Int)
    /// The server is stopping; a parked request is released with this.
    case shuttingDown
    /// A header that leaves the request's framing or target in doubt (`RequestFraming`):
    /// answered before the body is read, and the connection closed after it.
    case invalidHeader(name: String, reason: String)
    /// The request's head leaves its connection too little memory to write an answer
    /// (`HeaderRoom`): refused before the handler sees it, since it could not be answered.
    case headersTooLarge(limit: Int)
}
