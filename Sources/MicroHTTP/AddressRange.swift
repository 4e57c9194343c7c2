/// A block of addresses in CIDR form (`10.0.0.0/8`, `2001:db8::/32`) or one address: the
/// proxies whose `X-Forwarded-For` the server believes (`TrustedProxies`).
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    private let base: ClientAddress
    /// Leading bits that must match, counted over the 128 of the IPv6 form (IPv4's /n is 96 + n).
    private let prefixBits: Int
    public let description: String

    /// `address` or `address/bits`; nil when either part is not valid, or when bits are set past the prefix.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = ClientAddress(String(parts[0])) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let given = Int(decimalDigits: parts[1]), given <= width else { return nil }
            bits = given
        }
        let prefixBits = bits + (address.isIPv4 ? 96 : 0)
        // A base with host bits set (10.0.0.1/8) is most likely a typo for another range.
        guard address.masked(toPrefix: prefixBits) == address else { return nil }
        base = address
        self.prefixBits = prefixBits
        description = text
    }

    public func contains(_ address: ClientAddress) -> Bool {
        address.masked(toPrefix: prefixBits) == base
    }
}
