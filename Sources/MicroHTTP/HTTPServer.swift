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
        /// The PEM strings and the priorities libmicrohttpd was given; it may read them while
        /// running, so they are freed only after MHD_stop_daemon returns.
        var tlsStrings: [UnsafeMutablePointer<CChar>] = []
    }

    public let configuration: HTTPServerConfiguration
    private let context: DaemonContext
    private let state = Mutex(State())

    public init(
        configuration: HTTPServerConfiguration,
        handler: some HTTPHandler,
        libraryLog: (@Sendable (LibraryMessage) -> Void)? = nil,
        accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil
    ) {
        self.configuration = configuration
        context = DaemonContext(
            handler: handler,
            maxBodyBytes: configuration.maxBodyBytes,
            bufferedBodies: configuration.bufferedBodies,
            connectionMemoryBytes: configuration.connectionMemoryBytes,
            trustedProxies: configuration.trustedProxies,
            connectionsPerAddress: configuration.connectionsPerAddress,
            accessLog: accessLog,
            libraryLog: libraryLog
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
        guard configuration.connectionMemoryBytes >= 4096 else {
            throw .invalidConfiguration("connection memory must be at least 4096 bytes")
        }
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        if configuration.tls != nil, MHD_is_feature_supported(.FEATURE_TLS) != .YES { throw .tlsUnsupported }
        let context = context
        return try state.withLock { state throws(HTTPServerError) -> UInt16 in
            guard state.daemon == nil else { throw .alreadyRunning }
            // A server stopped before serves again: `stop` left its context refusing connections.
            context.beginServing()
            // Released in stop() once MHD_stop_daemon has returned, or right below on failure.
            let retained = Unmanaged.passRetained(context)
            var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
            // Dual stack: `::` takes IPv4 clients too (as IPv4-mapped addresses, which
            // ClientAddress reads as IPv4); MHD_USE_IPv6 alone sets IPV6_V6ONLY and refuses them.
            if address.isIPv6 { flags |= MHD_USE_DUAL_STACK.rawValue }
            // Freed in stop() after MHD_stop_daemon, or right below on failure.
            let tlsStrings =
                configuration.tls.map { [strdup($0.certificatePEM)!, strdup($0.privateKeyPEM)!, strdup(Self.tlsPriorities)!] }
                ?? []
            if !tlsStrings.isEmpty { flags |= MHD_USE_TLS.rawValue }
            // GnuTLS sets no errno when it refuses a certificate; everything else that fails
            // here (a socket, an epoll, a thread's channel) sets one. Cleared first, so that an
            // errno left by something earlier is not read as either.
            errno = 0
            let daemon = address.withSockaddr { sockaddr in
                var options = Self.options(for: configuration, address: sockaddr, tls: tlsStrings, context: retained)
                return options.withUnsafeMutableBufferPointer { items in
                    // The address goes in an option (SOCK_ADDR), which is what libmicrohttpd binds;
                    // the port it is handed only names the port in its messages. Given 0 there,
                    // a busy port was logged as "Failed to bind to port 0".
                    CMicroHTTPD_start_daemon(
                        flags, configuration.port, acceptConnection, handleAccess, retained.toOpaque(), handleCompleted,
                        items.baseAddress)
                }
            }
            guard let daemon else {
                let code = errno
                retained.release()
                tlsStrings.forEach { free($0) }
                // Only a failure without an errno is GnuTLS's: any other errno was taken for it
                // too, and a start out of descriptors (EMFILE) was reported as the key refused.
                if !tlsStrings.isEmpty, code == 0 { throw .tlsRejected }
                throw .cannotListen(host: configuration.host, port: configuration.port, errno: code)
            }
            let port = CMicroHTTPD_bound_port(daemon)
            state = State(daemon: daemon, port: port, retainedContext: retained, tlsStrings: tlsStrings)
            return port
        }
    }

    /// Stops gracefully: no new connections, parked requests released, requests in
    /// flight given `shutdownGraceSeconds` to finish (ended streams `streamEndMoment`),
    /// then every connection closed. A request whose body is still arriving is not in flight
    /// (`DaemonContext.requestStarted`): it is closed unanswered, not waited for.
    public func stop() {
        let taken = state.withLock { state -> (OpaquePointer, Unmanaged<DaemonContext>, [UnsafeMutablePointer<CChar>])? in
            guard let daemon = state.daemon, let retained = state.retainedContext else { return nil }
            defer { state = State() }
            return (daemon, retained, state.tlsStrings)
        }
        guard let (daemon, retained, tlsStrings) = taken else { return }
        // From here `acceptConnection` closes every new connection at once. Not
        // MHD_quiesce_daemon: in libmicrohttpd 0.9.75 it removes the listening socket from each
        // worker's epoll set while the worker may be removing it too, and whichever loses
        // aborts the process ("Failed to remove listen FD from epoll set"); it did so in a
        // test run. The socket stays open until MHD_stop_daemon closes it below.
        context.beginShutdown()
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(configuration.shutdownGraceSeconds * 1000))
        // Ended streams get a moment to deliver their end, not the grace period: one whose
        // client reads nothing (its buffers full) held every stop for the whole 10 s, as long
        // as Docker waits before its SIGKILL, which then lost the stop's last writes.
        let streamsDeadline = min(deadline, clock.now + Self.streamEndMoment)
        while clock.now < deadline, !context.isHurried {
            let streams = context.streamedRequestsInFlight
            let others = context.requestsInFlight - streams
            if others <= 0, streams == 0 || clock.now >= streamsDeadline { break }
            context.releaseParked()
            usleep(5_000)
        }
        // Past the grace period, a request still parked (a durable write not yet landed) is
        // closed unanswered: MHD_stop_daemon aborts the process if a connection is suspended.
        context.abandonParked()
        MHD_stop_daemon(daemon)
        retained.release()
        tlsStrings.forEach { free($0) }
    }

    /// How long a stop waits for ended streams to deliver their end: ample for a client that
    /// reads (milliseconds), and all that one that does not costs the stop.
    static let streamEndMoment: Duration = .seconds(1)

    /// Each request thread's stack: 8 MiB, glibc's usual default, whatever `ulimit -s` says.
    static let requestThreadStackBytes = 8 << 20

    /// Ends the grace period of a `stop()` under way (or of the next one) at once: requests
    /// still in flight are closed unanswered, as they are when the grace period runs out. For
    /// an operator who will not wait (a second stop signal); callable from any thread.
    public func endGracePeriod() {
        context.hurry()
    }

    /// What GnuTLS may negotiate: its defaults without TLS 1.0 and 1.1. libmicrohttpd 0.9.75
    /// asks GnuTLS for `NORMAL`, which in Debian 12's GnuTLS 3.7.9 still takes both, so the
    /// server answered a TLS 1.0 handshake (RFC 8996: MUST NOT) and every TLS scanner flagged
    /// it. Browsers dropped both in 2020; TLS 1.2 dates from 2008. Restrictions in GnuTLS's system
    /// configuration (/etc/gnutls/config) still apply on top of this string.
    static let tlsPriorities = "NORMAL:-VERS-TLS1.0:-VERS-TLS1.1"

    /// `tls` is the certificate, the key and the priorities, as C strings that outlive the daemon.
    private static func options(
        for configuration: HTTPServerConfiguration,
        address: UnsafePointer<sockaddr>,
        tls: [UnsafeMutablePointer<CChar>],
        context: Unmanaged<DaemonContext>
    ) -> [MHD_OptionItem] {
        // First, as libmicrohttpd asks, so that no message goes to stderr before it is set.
        let logger: MHD_LogCallback = logLibraryMessage
        let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int =
            unescapeKeepingNUL
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(
                option: .EXTERNAL_LOGGER, value: Int(bitPattern: unsafeBitCast(logger, to: UnsafeRawPointer.self)),
                ptr_value: context.toOpaque()),
            MHD_OptionItem(
                option: .UNESCAPE_CALLBACK,
                value: Int(bitPattern: unsafeBitCast(unescape, to: UnsafeRawPointer.self)), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryBytes, ptr_value: nil),
            MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: address)),
            // The request threads' stack, set rather than left to the process's `ulimit -s`:
            // reading and writing a session recurses once per level of its tree, and at
            // `--max-presentation-depth 1000` an import took more than 1 MiB of it, so a
            // smaller limit (or glibc's default without one) crashed the server on a request
            // its options allow. Only the pages a thread touches are resident.
            MHD_OptionItem(option: .THREAD_STACK_SIZE, value: Self.requestThreadStackBytes, ptr_value: nil),
        ]
        if configuration.threads > 1 {
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
        }
        // Our own count rather than libmicrohttpd's PER_IP_CONNECTION_LIMIT, which counts exact
        // addresses (ConnectionsPerAddress): `acceptConnection` takes a place, this callback
        // keeps it while the connection lives and gives it back when it closes.
        if configuration.connectionsPerAddress != nil {
            let notify: MHD_NotifyConnectionCallback = notifyConnection
            options.append(
                MHD_OptionItem(
                    option: .NOTIFY_CONNECTION, value: Int(bitPattern: unsafeBitCast(notify, to: UnsafeRawPointer.self)),
                    ptr_value: context.toOpaque()))
        }
        if tls.count == 3 {
            options.append(MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(tls[0])))
            options.append(MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(tls[1])))
            options.append(MHD_OptionItem(option: .HTTPS_PRIORITIES, value: 0, ptr_value: UnsafeMutableRawPointer(tls[2])))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        return options
    }
}
