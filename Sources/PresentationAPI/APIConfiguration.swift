public import MicroHTTP
public import Presentation

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
    /// The most bytes those remembered answers hold: past it the oldest go first, whatever
    /// their count. An answer carries the session made, params and all (up to the body limit,
    /// 1 MiB): without it, 10,000 keyed creations of large sessions, each deleted at once,
    /// held gigabytes that neither `--max-sessions` nor `--max-stored-bytes` counts.
    public var creationReplyBytesKept: Int
    /// The digest of the administrator's token; nil turns the admin routes (listing, metrics) off.
    public var adminToken: SessionTokenDigest?
    /// Other origins whose pages may call the API; off by default.
    public var cors: CORSPolicy
    /// Sessions one client address may create or import a minute (`CreationRateLimit`);
    /// nil for no limit, the default, since behind a proxy every client has its address.
    public var creationsPerMinutePerAddress: Int?
    /// The HTTP server's per-client connection count, when it has one: `/metrics` reports it.
    public var connectionsPerAddress: ConnectionsPerAddress?
    /// The HTTP server's count of request bodies being received, for metrics; nil for none.
    public var bufferedBodies: BufferedBodies?

    public init(
        maxWaitSeconds: Int = 60,
        heartbeatSeconds: Double = 15,
        maxJSONDepth: Int = 32,
        creationKeysKept: Int = 10_000,
        creationReplyBytesKept: Int = 64 << 20,
        adminToken: SessionTokenDigest? = nil,
        cors: CORSPolicy = CORSPolicy(),
        creationsPerMinutePerAddress: Int? = nil,
        connectionsPerAddress: ConnectionsPerAddress? = nil
    ) {
        self.adminToken = adminToken
        self.cors = cors
        self.maxWaitSeconds = maxWaitSeconds
        self.heartbeatSeconds = heartbeatSeconds
        self.maxJSONDepth = maxJSONDepth
        self.creationKeysKept = creationKeysKept
        self.creationReplyBytesKept = creationReplyBytesKept
        self.creationsPerMinutePerAddress = creationsPerMinutePerAddress
        self.connectionsPerAddress = connectionsPerAddress
    }
}
