/// Settings of the API layer; the domain's own limits live in the store's `Limits`.
public struct APIConfiguration: Sendable {
    /// The longest `?wait=` a client may ask for, in seconds.
    public var maxWaitSeconds: Int
    /// How often idle event streams get a comment, so a vanished client is noticed.
    public var heartbeatSeconds: Double
    /// Nesting allowed in a request body (params included).
    public var maxJSONDepth: Int
    /// Idempotency keys remembered for session creation, across all clients.
    public var creationKeysKept: Int

    public init(
        maxWaitSeconds: Int = 60,
        heartbeatSeconds: Double = 15,
        maxJSONDepth: Int = 32,
        creationKeysKept: Int = 10_000
    ) {
        self.maxWaitSeconds = maxWaitSeconds
        self.heartbeatSeconds = heartbeatSeconds
        self.maxJSONDepth = maxJSONDepth
        self.creationKeysKept = creationKeysKept
    }
}
