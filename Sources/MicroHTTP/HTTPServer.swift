import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of epoll threads calling one handler.
///
/// Knows nothing of what it serves. `start()` binds (port 0 picks a free port) and
/// returns the port; `stop()` stops accepting, lets requests in flight finish, releases
/// parked ones, and closes everything.
public final class HTTPServer: Sendable {
    private struct State {
        var daemon: OpaquePointer?
        var port: UInt16?
        /// The +1 on the daemon context that libmicrohttpd holds as `cls`.
        var retainedContext: Unmanaged<DaemonContext>?
    }

    public let configuration: HTTPServerConfiguration
    private let context: DaemonContext
    private let state = Mutex(State())

    public init(
        configuration: HTTPServerConfiguration,
        handler: some HTTPHandler,
        accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil
    ) {
        self.configuration = configuration
        context = DaemonContext(
            handler: handler,
            maxBodyBytes: configuration.maxBodyBytes,
            accessLog: accessLog
        )
    }

    deinit {
        stop()
    }

    /// The bound port while running.
    public var port: UInt16? {
        state.withLock { $0.port }
    }

    /// Binds and starts the worker threads (`MHD_start_daemon`); returns the bound port.
    @discardableResult
    public func start() throws(HTTPServerError) -> UInt16 {
        let configuration = configuration
        guard configuration.threads >= 1, configuration.threads <= 1024 else {
            throw .invalidConfiguration("threads must be between 1 and 1024")
        }
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        let context = context
        return try state.withLock { state throws(HTTPServerError) -> UInt16 in
            guard state.daemon == nil else { throw .alreadyRunning }
            // Released in stop() once MHD_stop_daemon has returned, or right below on failure.
            let retained = Unmanaged.passRetained(context)
            var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
            if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            let daemon = address.withSockaddr { sockaddr in
                var options = Self.options(for: configuration, address: sockaddr)
                return options.withUnsafeMutableBufferPointer { items in
                    CMicroHTTPD_start_daemon(
                        flags, handleAccess, retained.toOpaque(), handleCompleted, items.baseAddress)
                }
            }
            guard let daemon else {
                let code = errno
                retained.release()
                throw .cannotListen(host: configuration.host, port: configuration.port, errno: code)
            }
            let port = CMicroHTTPD_bound_port(daemon)
            state = State(daemon: daemon, port: port, retainedContext: retained)
            return port
        }
    }

    /// Stops gracefully: no new connections, parked requests released, requests in
    /// flight given `shutdownGraceSeconds` to finish, then every connection closed.
    public func stop() {
        let taken = state.withLock { state -> (OpaquePointer, Unmanaged<DaemonContext>)? in
            guard let daemon = state.daemon, let retained = state.retainedContext else { return nil }
            state = State()
            return (daemon, retained)
        }
        guard let (daemon, retained) = taken else { return }
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        context.beginShutdown()
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(configuration.shutdownGraceSeconds * 1000))
        while context.requestsInFlight > 0, clock.now < deadline {
            context.releaseParked()
            usleep(5_000)
        }
        MHD_stop_daemon(daemon)
        retained.release()
    }

    private static func options(
        for configuration: HTTPServerConfiguration,
        address: UnsafePointer<sockaddr>
    ) -> [MHD_OptionItem] {
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: address)),
        ]
        if configuration.threads > 1 {
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
        }
        if configuration.perAddressConnectionLimit > 0 {
            options.append(
                MHD_OptionItem(
                    option: .PER_IP_CONNECTION_LIMIT, value: configuration.perAddressConnectionLimit, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        return options
    }
}
