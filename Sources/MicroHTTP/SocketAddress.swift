#if canImport(Glibc)
    import Glibc
#endif

/// A numeric IPv4 or IPv6 address and port, ready to hand to bind(2) through libmicrohttpd.
struct SocketAddress {
    private enum Storage {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    private let storage: Storage

    init(host: String, port: UInt16) throws(HTTPServerError) {
        let host = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            storage = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            storage = .v6(v6)
            return
        }
        throw .invalidHost(host)
    }

    var isIPv6: Bool {
        if case .v6 = storage { return true }
        return false
    }

    /// Calls `body` with a pointer valid only for the call (libmicrohttpd binds during it).
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        switch storage {
        case .v4(var address):
            withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .v6(var address):
            withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}
