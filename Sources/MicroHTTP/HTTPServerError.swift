/// Why the server could not start.
public enum HTTPServerError: Error, Hashable, Sendable, CustomStringConvertible {
    case alreadyRunning
    case invalidHost(String)
    case invalidConfiguration(String)
    /// libmicrohttpd refused to start (most often: the address is in use).
    case cannotListen(host: String, port: UInt16, errno: Int32)
    /// The libmicrohttpd here was built without TLS.
    case tlsUnsupported
    /// libmicrohttpd refused to start with the TLS certificate and key given.
    case tlsRejected

    public var description: String {
        switch self {
        case .alreadyRunning: "the server is already running"
        case .invalidHost(let host): "host \"\(host)\" is not a numeric IPv4 or IPv6 address"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        case .cannotListen(let host, let port, let code):
            "cannot listen on \(host):\(port): \(String(cString: strerror(code)))"
        case .tlsUnsupported: "this libmicrohttpd was built without TLS support"
        case .tlsRejected:
            "the TLS certificate or private key was refused: both PEM, the key matching the certificate (libmicrohttpd's reason is in the log, as a libmicrohttpd warning)"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
