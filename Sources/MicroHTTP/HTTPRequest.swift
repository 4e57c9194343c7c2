/// A request as the handler sees it: everything copied out of libmicrohttpd already.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The path, percent-decoded by libmicrohttpd, without the query string.
    public var path: String
    /// Query arguments in order, percent-decoded; a bare `?flag` has a nil value.
    public var query: [(name: String, value: String?)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Where the request came from: the peer's address, or the client a trusted proxy names
    /// (`TrustedProxies`); nil when the connection has no IPv4 or IPv6 address, and in
    /// requests a test makes by hand.
    public var clientAddress: ClientAddress?

    public init(
        method: HTTPMethod,
        path: String,
        query: [(name: String, value: String?)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        clientAddress: ClientAddress? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The first value of the query argument `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value ?? nil
    }

    /// True when the query names `name`, with or without a value.
    public func hasQuery(_ name: String) -> Bool {
        query.contains { $0.name == name }
    }
}
