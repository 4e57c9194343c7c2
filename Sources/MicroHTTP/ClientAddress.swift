#if canImport(Glibc)
    import Glibc
#endif

/// The address a request's connection came from, copied out of libmicrohttpd when the
/// request is handed on, so it outlives the connection.
///
/// Kept as the 16 bytes of an IPv6 address, IPv4 as IPv4-mapped (`::ffff:a.b.c.d`): one
/// fixed-size value, hashable, whichever family the connection used.
public struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address's first and last 8 bytes, in network order read as big-endian numbers.
    private let high: UInt64
    private let low: UInt64

    private static let mappedPrefix: UInt64 = 0x0000_FFFF

    /// True for an IPv4 address (IPv4-mapped IPv6 included, as dual-stack sockets report them).
    public var isIPv4: Bool { high == 0 && low >> 32 == Self.mappedPrefix }

    /// Whom a per-address limit counts: an IPv4 address as it is, an IPv6 address by its
    /// /64, since one subscriber is usually given a whole /64 and may use any of it.
    public var limitKey: ClientAddress {
        isIPv4 ? self : masked(toPrefix: 64)
    }

    /// The address with every bit past the first `bits` (of 128) cleared.
    func masked(toPrefix bits: Int) -> ClientAddress {
        func mask(_ kept: Int) -> UInt64 { kept <= 0 ? 0 : kept >= 64 ? .max : ~(UInt64.max >> UInt64(kept)) }
        return ClientAddress(high: high & mask(bits), low: low & mask(bits - 64))
    }

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A numeric IPv4 (`203.0.113.7`) or IPv6 (`2001:db8::1`) address; nil for anything else.
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(ipv4: v4)
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(ipv6: v6)
    }

    /// An address as proxies write it in `X-Forwarded-For`: numeric, or with a port as some
    /// write it (Azure's gateways, IIS's ARR: `203.0.113.7:4711`, `[2001:db8::1]:4711`), or an
    /// IPv6 address in brackets (`[2001:db8::1]`, as RFC 7239 writes it). The port names no
    /// client and is dropped. A bare IPv6 address takes no port: its last group would be read
    /// as one.
    public init?(forwarded text: String) {
        var host = Substring(text)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
            // Only IPv6 is written in brackets.
            guard host.contains(":") else { return nil }
        } else if let colon = host.firstIndex(of: ":"), host[host.index(after: colon)...].allSatisfy({ $0 != ":" }) {
            // One colon: an IPv4 address and its port.
            guard Self.isPort(host[colon...]) else { return nil }
            host = host[..<colon]
            guard host.contains(".") else { return nil }
        }
        self.init(String(host))
    }

    /// `:` and a port number (1 to 5 digits, at most 65535).
    private static func isPort(_ text: Substring) -> Bool {
        guard text.first == ":" else { return false }
        let digits = text.dropFirst()
        guard (1...5).contains(digits.count), let port = Int(decimalDigits: digits) else {
            return false
        }
        return port <= 65535
    }

    /// The address of a socket address from the C library; nil for a family other than IPv4 or IPv6.
    /// The pointer is read during the call only.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            self.init(ipv4: v4.sin_addr)
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            self.init(ipv6: v6.sin6_addr)
        default:
            return nil
        }
    }

    private init(ipv4: in_addr) {
        self.init(high: 0, low: Self.mappedPrefix << 32 | UInt64(UInt32(bigEndian: ipv4.s_addr)))
    }

    private init(ipv6: in6_addr) {
        let (high, low) = withUnsafeBytes(of: ipv6) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        self.init(high: high, low: low)
    }

    /// The address as people write it: dotted for IPv4, RFC 5952 for IPv6.
    public var description: String {
        String(unsafeUninitializedCapacity: Self.textCapacity) { writeText(into: $0) }
    }

    /// The longest text `writeText(into:)` writes (INET6_ADDRSTRLEN, its NUL included).
    public static let textCapacity = 46

    /// Writes the address as people write it (ASCII) at the start of `buffer`, which holds at
    /// least `textCapacity` bytes, and returns how many it wrote. Not generic and allocating
    /// nothing: every access log line writes one.
    public func writeText(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(buffer.count >= Self.textCapacity)
        guard isIPv4 else {
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) {
                $0.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
                $0.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            }
            return buffer.withMemoryRebound(to: CChar.self) { text in
                inet_ntop(AF_INET6, &v6, text.baseAddress, socklen_t(text.count)) == nil ? 0 : strlen(text.baseAddress!)
            }
        }
        // By hand: glibc's inet_ntop formats IPv4 with sprintf.
        var count = 0
        for shift in stride(from: 24, through: 0, by: -8) {
            let part = Int(low >> UInt64(shift) & 0xFF)
            if part >= 100 { buffer[count] = UInt8(ascii: "0") + UInt8(part / 100); count += 1 }
            if part >= 10 { buffer[count] = UInt8(ascii: "0") + UInt8(part / 10 % 10); count += 1 }
            buffer[count] = UInt8(ascii: "0") + UInt8(part % 10)
            count += 1
            if shift > 0 { buffer[count] = UInt8(ascii: "."); count += 1 }
        }
        return count
    }
}
