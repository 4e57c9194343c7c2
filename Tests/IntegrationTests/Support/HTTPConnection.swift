#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import MicroHTTP

/// One HTTP/1.1 connection to the test server over a blocking POSIX socket.
///
/// Every read has a deadline (`poll`, with `SO_RCVTIMEO` as a backstop), so a server that
/// never answers fails the test instead of hanging it. One connection carries many requests
/// in turn (keep-alive); it belongs to one thread at a time.
final class HTTPConnection {
    static let defaultTimeout: Duration = .seconds(5)

    let port: UInt16
    /// How long one response may take unless a call says otherwise.
    let timeout: Duration
    private var descriptor: Int32
    /// Bytes received and not yet consumed.
    private var received: [UInt8] = []
    /// True once either side has closed; the next request needs a new connection.
    private(set) var isClosed = false

    /// `source` is the loopback address to connect from (127.0.0.1 unless given), so a
    /// test can be two clients at two addresses for the per-address connection limit.
    /// `receiveBuffer` sets `SO_RCVBUF` before connecting: a client that stops reading then
    /// leaves the server's writes stuck after a few KiB rather than megabytes.
    init(
        port: UInt16, timeout: Duration = HTTPConnection.defaultTimeout, source: UInt32? = nil, receiveBuffer: Int32? = nil
    ) throws(ClientError) {
        _ = Self.descriptorLimitRaised
        self.port = port
        self.timeout = timeout
        descriptor = try openLoopbackSocket(port: port, timeout: timeout, source: source, receiveBuffer: receiveBuffer)
    }

    /// The test process's soft descriptor limit raised to its hard one, once, before its first
    /// connection, as the server does its own: the thousand-client tests hold some 1,000
    /// sockets while the other suites run beside them, past the 1,024 that systemd and many
    /// shells leave as the soft limit whatever the hard one allows.
    private static let descriptorLimitRaised: Void = DescriptorRoom.raiseSoftLimit()

    deinit {
        closeSocket()
    }

    /// Closes our end; the server sees the client leave.
    func closeSocket() {
        guard descriptor >= 0 else { return }
        closeDescriptor(descriptor)
        descriptor = -1
        isClosed = true
    }

    /// Closes our writing side only (`shutdown(SHUT_WR)`): the server reads the end of what we
    /// send, and may still answer.
    func closeWriting() {
        guard descriptor >= 0 else { return }
        shutdownWriting(descriptor)
    }

    // MARK: Writing

    /// Sends one request; adds `Host` and, for a body, `Content-Length` unless given.
    func write(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) throws(ClientError) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        let framed = headers.contains {
            $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding"
        }
        if let body, !framed {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        try writeRaw(Array(head.utf8) + (body ?? []))
    }

    /// Sends bytes exactly as given (hand-framed requests, chunked bodies).
    func writeRaw(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { socketSend(descriptor, $0) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .sendFailed(errno: errno)
            }
            offset += sent
        }
    }

    // MARK: Reading

    /// Reads one whole response. `method` matters for HEAD, whose answer has no body.
    func readResponse(to method: String = "GET", timeout: Duration? = nil) throws(ClientError) -> ClientResponse {
        let deadline = ContinuousClock.now + (timeout ?? self.timeout)
        let head = try readHead(until: deadline)
        var body: [UInt8] = []
        if method == "HEAD" || head.status / 100 == 1 || head.status == 204 || head.status == 304 {
            body = []
        } else if head.isChunked {
            while let chunk = try readChunk(until: deadline) { body += chunk }
        } else if let length = head.contentLength {
            body = try readExactly(length, until: deadline, waitingFor: "a body of \(length) bytes")
        } else {
            while let bytes = try readAvailable(until: deadline) { body += bytes }
        }
        if head.header("Connection")?.lowercased().contains("close") == true {
            closeSocket()
        }
        return ClientResponse(status: head.status, headers: head.headers, body: body)
    }

    /// Reads a status line and header fields.
    func readHead(until deadline: ContinuousClock.Instant) throws(ClientError) -> ResponseHead {
        let statusLine = try readLine(until: deadline, waitingFor: "a status line")
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .malformedResponse("status line \"\(statusLine)\"")
        }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine(until: deadline, waitingFor: "header fields")
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse("header line \"\(line)\"") }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((name: String(line[..<colon]), value: String(value)))
        }
        return ResponseHead(status: status, headers: headers)
    }

    /// One chunk of a chunked body; nil after the last (zero-sized) chunk and its trailer.
    func readChunk(until deadline: ContinuousClock.Instant) throws(ClientError) -> [UInt8]? {
        let sizeLine = try readLine(until: deadline, waitingFor: "a chunk size")
        let digits = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard let size = Int(digits.filter { $0 != " " && $0 != "\t" }, radix: 16), size >= 0 else {
            throw .malformedResponse("chunk size \"\(sizeLine)\"")
        }
        if size == 0 {
            while try !readLine(until: deadline, waitingFor: "the chunked trailer").isEmpty {}
            return nil
        }
        let data = try readExactly(size, until: deadline, waitingFor: "a chunk of \(size) bytes")
        guard try readLine(until: deadline, waitingFor: "the end of a chunk").isEmpty else {
            throw .malformedResponse("chunk of \(size) bytes not followed by CRLF")
        }
        return data
    }

    /// Whatever has arrived, waiting for at least one byte; nil once the server closed.
    func readAvailable(until deadline: ContinuousClock.Instant) throws(ClientError) -> [UInt8]? {
        if received.isEmpty {
            do {
                try fill(until: deadline, waitingFor: "more of the body")
            } catch .closedByServer {
                return nil
            }
        }
        defer { received = [] }
        return received
    }

    /// True when bytes (or the server's close) arrive within `interval`: used to show that a
    /// parked request has not been answered yet.
    func hasData(within interval: Duration) -> Bool {
        if !received.isEmpty || isClosed { return true }
        return waitReadable(descriptor, for: interval) != 0
    }

    private func readLine(until deadline: ContinuousClock.Instant, waitingFor what: String) throws(ClientError)
        -> String
    {
        var searched = 0
        while true {
            if let end = received[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(received[..<end])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                received.removeFirst(end + 1)
                return String(decoding: line, as: UTF8.self)
            }
            searched = received.count
            try fill(until: deadline, waitingFor: what)
        }
    }

    private func readExactly(_ count: Int, until deadline: ContinuousClock.Instant, waitingFor what: String)
        throws(ClientError) -> [UInt8]
    {
        while received.count < count {
            try fill(until: deadline, waitingFor: what)
        }
        defer { received.removeFirst(count) }
        return Array(received[..<count])
    }

    /// Receives at least one more byte before `deadline`, or throws.
    private func fill(until deadline: ContinuousClock.Instant, waitingFor what: String) throws(ClientError) {
        guard descriptor >= 0 else { throw .closedByServer(waitingFor: what) }
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timedOut(waitingFor: what) }
            let ready = waitReadable(descriptor, for: remaining)
            if ready == 0 { throw .timedOut(waitingFor: what) }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .receiveFailed(errno: errno)
            }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let count = buffer.withUnsafeMutableBytes { socketReceive(descriptor, $0) }
            if count > 0 {
                received += buffer[..<count]
                return
            }
            if count == 0 {
                closeSocket()
                throw .closedByServer(waitingFor: what)
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut(waitingFor: what) }
            throw .receiveFailed(errno: errno)
        }
    }
}

// The C calls live at file scope, where `close`, `send` and `recv` are not shadowed by methods.

private func openLoopbackSocket(port: UInt16, timeout: Duration, source: UInt32?, receiveBuffer: Int32?) throws(ClientError)
    -> Int32
{
    #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw .cannotConnect(errno: errno) }
    if var receiveBuffer {
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
    }
    if let source {
        guard withLoopbackAddress(source, port: 0, { bind(descriptor, $0, $1) }) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotConnect(errno: code)
        }
    }
    let connected = withLoopbackAddress(0x7f00_0001, port: port) { connect(descriptor, $0, $1) }
    guard connected == 0 else {
        let code = errno
        close(descriptor)
        throw .cannotConnect(errno: code)
    }
    var noDelay: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
    var limit = timeval(tv_sec: Int(timeout.components.seconds) + 1, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    #if canImport(Darwin)
        var noSignal: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
    #endif
    return descriptor
}

/// Calls `body` with an IPv4 socket address (host byte order in, network order out) and its length.
private func withLoopbackAddress(
    _ host: UInt32, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = host.bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}

private func shutdownWriting(_ descriptor: Int32) {
    #if canImport(Glibc)
        shutdown(descriptor, Int32(SHUT_WR))
    #else
        shutdown(descriptor, SHUT_WR)
    #endif
}

private func socketSend(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Glibc)
        send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #else
        send(descriptor, bytes.baseAddress, bytes.count, 0)
    #endif
}

private func socketReceive(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    recv(descriptor, buffer.baseAddress, buffer.count, 0)
}

/// `poll` for readability: 1 when readable (or closed), 0 on timeout, -1 on error.
private func waitReadable(_ descriptor: Int32, for interval: Duration) -> Int32 {
    guard descriptor >= 0 else { return 1 }
    let (seconds, attoseconds) = interval.components
    let milliseconds = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, Int32(clamping: milliseconds))
}
