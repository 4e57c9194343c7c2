/// The first answer given to a request that carried an idempotency key, kept to answer its retries.
///
/// The domain keeps these bytes opaque: the API layer decides what a fingerprint and a body are.
public struct RecordedReply: Hashable, Sendable {
    /// Identifies the request, so the same key sent with a different request can be told apart.
    public var fingerprint: [UInt8]
    public var status: Int
    public var body: [UInt8]
    /// The session's revision when the reply was made.
    public var revision: Int

    public init(fingerprint: [UInt8], status: Int, body: [UInt8], revision: Int) {
        self.fingerprint = fingerprint
        self.status = status
        self.body = body
        self.revision = revision
    }
}
