import MicroHTTP

/// What the API layer itself refuses, before or around the domain: the wire's errors.
enum APIError: Error, Hashable, Sendable {
    case routeNotFound(String)
    case methodNotAllowed([HTTPMethod])
    case malformedJSON(String)
    case unsupportedMediaType(String)
    /// A body member of the wrong type or value; `pointer` is a JSON pointer into the body.
    case invalidField(pointer: String, reason: String)
    case missingField(pointer: String)
    case unknownField(pointer: String)
    /// A path's presentation id longer than any id a session issues (`PresentationID`): it
    /// names no presentation, as an unknown id of the right length does.
    case presentationIDTooLong
    case invalidQuery(name: String, reason: String)
    case invalidHeader(name: String, reason: String)
    case unauthorized
    /// An admin route without the administrator's token.
    case adminUnauthorized
    case idempotencyKeyReused
    /// A file's `If-Match` names none of its tags: it changed since the client's copy.
    case fileChanged
    /// A file is there but cannot be read now (no descriptor or memory left, a failed read).
    case fileUnavailable
    case bodyTooLarge(limit: Int)
    /// The request bodies arriving at once hold `--max-buffered-body-bytes`.
    case bodyBufferFull(limit: Int)
    /// The request's head would leave its connection no room to answer (`HeaderRoom`).
    case headersTooLarge(limit: Int)
    /// The client's address has created its `perMinute` sessions; one more in `retryAfter` seconds.
    case creationRateLimited(perMinute: Int, retryAfter: Int)
    case shuttingDown
    /// Operation `index` of a batch has the wrong shape.
    indirect case batchOperation(index: Int, APIError)
}
