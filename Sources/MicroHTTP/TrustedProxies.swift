/// The proxies in front of the server whose `X-Forwarded-For` it believes, so that a client's
/// address is its own and not the proxy's (for per-address limits and the access log).
///
/// A proxy appends the address it received the request from to `X-Forwarded-For`. Reading the
/// list from the right, every address is a proxy's word about the hop before it; the first one
/// that is not a trusted proxy is the client. Anything left of it may be the client's own
/// invention and is never read. A connection from an untrusted address is its own client,
/// whatever it sends.
public struct TrustedProxies: Sendable {
    public let ranges: [AddressRange]

    public init(_ ranges: [AddressRange] = []) {
        self.ranges = ranges
    }

    /// Comma-separated ranges (`10.0.0.0/8, 127.0.0.1`); the error names the first that is not one.
    public static func parse(_ text: String) -> Result<TrustedProxies, ParseError> {
        var ranges: [AddressRange] = []
        for part in text.split(separator: ",") {
            let trimmed = String(part.trimmingSpaces)
            guard let range = AddressRange(trimmed) else { return .failure(ParseError(text: trimmed)) }
            ranges.append(range)
        }
        return .success(TrustedProxies(ranges))
    }

    public struct ParseError: Error, Sendable {
        public let text: String
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func trusts(_ address: ClientAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client of a request that came from `peer`. `forwardedFor` is every
    /// `X-Forwarded-For` field of the request in order; it is read only when `peer` is trusted.
    public func client(of peer: ClientAddress, forwardedFor: () -> [String]) -> ClientAddress {
        guard trusts(peer) else { return peer }
        var client = peer
        let entries = forwardedFor().flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        for entry in entries.reversed() {
            // Not an address ("unknown", an obfuscated name): the hop before it cannot be
            // named, so the last one that could is the client. A port some proxies add is dropped.
            guard let address = ClientAddress(forwarded: String(entry.trimmingSpaces)) else { return client }
            client = address
            if !trusts(address) { return address }
        }
        // Every hop a trusted proxy: the first of them.
        return client
    }
}
