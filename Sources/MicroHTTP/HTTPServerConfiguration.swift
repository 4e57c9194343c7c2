/// How the server listens and what it allows a client; every limit has a safe default.
public struct HTTPServerConfiguration: Sendable {
    /// A numeric IPv4 or IPv6 address, or `localhost`.
    public var host: String
    /// 0 binds an ephemeral port; `HTTPServer.start()` returns the one bound.
    public var port: UInt16
    /// libmicrohttpd's worker threads, each running its own epoll loop.
    public var threads: Int
    /// Request bodies past this many bytes get 413 and are never buffered.
    public var maxBodyBytes: Int
    /// The request bodies held at once while they arrive, over every connection, and their
    /// bound (256 MiB by default); shared, so that metrics can read it.
    public var bufferedBodies: BufferedBodies
    /// Seconds a connection may sit idle (keep-alive or a stalled request) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Connections open at once; past it libmicrohttpd stops accepting, and new ones wait in
    /// the listen backlog until one closes (only the per-client limit closes them at once).
    public var connectionLimit: Int
    /// Counts and limits the connections each client holds open (an IPv6 client by its
    /// /64); nil, the default, for no per-client limit. Shared, so that metrics can read it.
    public var connectionsPerAddress: ConnectionsPerAddress?
    /// Each connection's memory in libmicrohttpd: the request line and headers, the read
    /// buffer and the response headers. A request whose headers do not fit is refused (431).
    /// libmicrohttpd clears it between requests and every idle event stream holds one, so it
    /// is kept at 16 KB rather than the library's 32 KB (docs/performance.md).
    public var connectionMemoryBytes: Int
    /// How long `stop` lets requests in flight finish before closing them (not those whose
    /// body is still arriving, which it closes at once).
    public var shutdownGraceSeconds: Double
    /// When set, the server speaks HTTPS only (libmicrohttpd's GnuTLS support).
    public var tls: TLSCredentials?
    /// Proxies whose `X-Forwarded-For` names a request's client; none by default.
    public var trustedProxies: TrustedProxies

    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        // One epoll thread per core the process may use: best on every workload measured here.
        threads: Int = AvailableProcessors.count,
        maxBodyBytes: Int = 1 << 20,
        bufferedBodies: BufferedBodies = BufferedBodies(limit: 256 << 20),
        connectionTimeoutSeconds: Int = 30,
        connectionLimit: Int = 4096,
        connectionsPerAddress: ConnectionsPerAddress? = nil,
        connectionMemoryBytes: Int = 16 * 1024,
        shutdownGraceSeconds: Double = 10,
        tls: TLSCredentials? = nil,
        trustedProxies: TrustedProxies = TrustedProxies()
    ) {
        self.tls = tls
        self.trustedProxies = trustedProxies
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.bufferedBodies = bufferedBodies
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionLimit = connectionLimit
        self.connectionsPerAddress = connectionsPerAddress
        self.connectionMemoryBytes = connectionMemoryBytes
        self.shutdownGraceSeconds = shutdownGraceSeconds
    }

    /// Whether `HTTPServer.start()` can listen on `host`: a numeric IPv4 or IPv6 address
    /// (the latter bracketed or not), or `localhost`. For checking options before anything starts.
    public static func isValidHost(_ host: String) -> Bool {
        (try? SocketAddress(host: host, port: 0)) != nil
    }
}
