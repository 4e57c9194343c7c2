#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CMicroHTTPD

// The @convention(c) functions libmicrohttpd calls, and with HTTPServer.swift,
// HTTPServer+RequestReading.swift, LibraryResponses.swift, RequestFraming.swift and
// HTTPPreparedResponse.swift the only places that touch its C API. Ownership at this boundary:
// - the DaemonContext (`cls`) is retained by HTTPServer.start and released by stop;
// - a RequestContext is retained into `*req_cls` on the first access call and released
//   by handleCompleted;
// - a streaming response retains its HTTPStream as the reader's `cls`, released by
//   freeStream when libmicrohttpd destroys the response;
// - a response made from shared runs retains them as its `cls` (LibraryResponses.swift);
// - url, method, header and upload pointers are valid during the call only, so they are
//   copied into Swift values before it returns;
// - a connection's `*socket_context` holds the DaemonContext's pointer as a mark only (the
//   connection is counted for its client), never retained and never read through.

/// A libmicrohttpd connection, for suspending and resuming it from other threads.
///
/// Kept as the address's bit pattern so it can live in a `Mutex` shared across threads:
/// libmicrohttpd documents MHD_resume_connection as callable from any thread, and the
/// owners (HTTPStream, HTTPDeferredResponse) drop the handle when the request completes,
/// before libmicrohttpd frees the connection.
struct ConnectionHandle: Sendable {
    private let address: Int

    init(raw: OpaquePointer) {
        address = Int(bitPattern: raw)
    }

    private var raw: OpaquePointer? { OpaquePointer(bitPattern: address) }

    /// `MHD_suspend_connection`: park the connection without holding a thread.
    func suspend() { MHD_suspend_connection(raw) }

    /// `MHD_resume_connection`: safe from any thread.
    func resume() { MHD_resume_connection(raw) }
}

/// MHD_AcceptPolicyCallback: every new connection is taken until the server begins to stop;
/// from then on libmicrohttpd closes each one as soon as it is accepted.
func acceptConnection(_ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t)
    -> MHD_Result
{
    guard let cls else { return .NO }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    if daemon.isStopping { return .NO }
    if let limit = daemon.connectionsPerAddress, let address, let client = ClientAddress(address),
        !limit.admit(client)
    {
        return .NO
    }
    return .YES
}

/// MHD_NotifyConnectionCallback, registered only with a per-client connection limit: keeps a
/// connection's place (`acceptConnection` took it) from when libmicrohttpd has set it up until
/// it closes. `*socketContext` marks a counted connection (it holds `cls`, never read
/// through), so a close gives a place back once only, and only for a connection counted.
func notifyConnection(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ event: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext,
        let limit = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().connectionsPerAddress,
        let address = CMicroHTTPD_client_address(connection), let client = ClientAddress(address)
    else { return }
    switch event {
    case .CONNECTION_NOTIFY_STARTED:
        limit.opened(client)
        socketContext.pointee = cls
    case .CONNECTION_NOTIFY_CLOSED:
        guard socketContext.pointee != nil else { return }
        socketContext.pointee = nil
        limit.closed(client)
    default:
        break
    }
}

/// Keeps a chunk of `request`'s body, within `maxBodyBytes` for the request and
/// `bufferedBodies` for every body arriving at once; past either, drops what it holds and
/// marks the request to be refused once its body has arrived.
private func receive(_ chunk: UnsafeRawBufferPointer, into request: RequestContext, daemon: DaemonContext) {
    request.bodyArrived += chunk.count
    if request.bodyArrived > daemon.maxBodyBytes {
        request.bodyTooLarge = true
    } else if request.bodyBufferFull {
        // Dropped as it arrives, but still counted: a body too large anyway is told so (413),
        // not to retry what can never pass (503).
        return
    } else if daemon.reserveBody(chunk.count, for: request) {
        // A body that announced its length gets room for all of it at once: grown by
        // doubling, a largest body held up to twice its bytes. Pages never written are not
        // resident, so a body that stops short costs what arrived.
        if request.body.isEmpty, let length = request.announcedLength, length > chunk.count {
            request.body.reserveCapacity(min(length, daemon.maxBodyBytes))
        }
        chunk.withMemoryRebound(to: UInt8.self) { request.body.append(contentsOf: $0) }
        return
    } else {
        request.bodyBufferFull = true
    }
    request.body = []
    daemon.releaseBody(of: request)
}

/// MHD_AccessHandlerCallback: called when headers arrive, for each body chunk, then
/// once more with no data, when the request is whole (and again after a resume).
func handleAccess(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestSlot else { return .NO }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestSlot.pointee else {
        let request = RequestContext(
            method: requestMethod(method, url: url, on: connection),
            path: requestPath(url, version: version, on: connection),
            clientAddress: clientAddress(of: connection, trusting: daemon.trustedProxies))
        // Released by handleCompleted.
        requestSlot.pointee = Unmanaged.passRetained(request).toOpaque()
        let headSize = CMicroHTTPD_request_header_size(connection)
        let framing = RequestFraming(of: connection, head: method, headSize: headSize, version: version)
        if let refusal = framing.refusal(version: version)
            ?? daemon.headerRoom.refusal(headerBytes: headSize, fields: framing.fields)
        {
            // Answered before any of the body is read, which makes libmicrohttpd close the
            // connection, so that no byte of it is taken for a request.
            daemon.requestStarted(request)
            let response = daemon.handler.response(for: refusal, requestHeaders: headers(of: connection))
            return queue(response, for: request, on: connection, daemon: daemon)
        }
        if let length = framing.contentLength, length > daemon.maxBodyBytes {
            if daemon.refusedBodyDrain.reads(
                announcedLength: length, expectsContinue: expectsContinue(connection, version: version))
            {
                // Read to its end and thrown away (never kept: `receive` is skipped), then
                // refused as a chunked body past the limit is: see RefusedBodyDrain for why.
                request.bodyTooLarge = true
                return .YES
            }
            // Answered before the body is read, which makes libmicrohttpd close the connection
            // afterwards: a body past what RefusedBodyDrain reads, or one not yet sent.
            daemon.requestStarted(request)
            let response = daemon.handler.response(
                for: .bodyTooLarge(limit: daemon.maxBodyBytes), requestHeaders: headers(of: connection))
            return queue(response, for: request, on: connection, daemon: daemon)
        }
        request.announcedLength = framing.contentLength
        // Answering now would cost keep-alive; answer on a later call.
        return .YES
    }
    let request = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        if !request.bodyTooLarge, let uploadData {
            receive(UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee), into: request, daemon: daemon)
        } else if request.bodyTooLarge {
            // Thrown away, but counted: a chunked body announces no length, and one that never
            // ended was read for as long as its client sent it. Past what a refused body is
            // read to, the connection is closed unanswered (libmicrohttpd queues no answer
            // mid-body), as an announced body past that bound is answered at once.
            request.bodyArrived += uploadDataSize.pointee
            if request.bodyArrived > daemon.refusedBodyDrain.limit { return .NO }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    if let deferred = request.deferred {
        // Resumed (or spuriously woken): answer if the promise is kept, else park again.
        return answer(deferred, for: request, on: connection, daemon: daemon)
    }
    // The request is whole, and this is the one call that answers it or hands it to the
    // handler: from here on a stop waits for it. Until now it has changed nothing, and a stop
    // closes it unanswered rather than wait out a client that sent part of a body and no more.
    daemon.requestStarted(request)
    if request.bodyTooLarge || request.bodyBufferFull {
        let refusal: HTTPRefusal =
            request.bodyTooLarge
            ? .bodyTooLarge(limit: daemon.maxBodyBytes) : .bodyBufferFull(limit: daemon.bufferedBodies.limit)
        if !request.bodyTooLarge { daemon.bufferedBodies.countRefusal() }
        let response = daemon.handler.response(for: refusal, requestHeaders: headers(of: connection))
        return queue(response, for: request, on: connection, daemon: daemon)
    }

    let httpRequest = HTTPRequest(
        method: request.method,
        path: request.path,
        query: values(of: connection, kind: .GET_ARGUMENT_KIND),
        headers: headers(of: connection),
        body: request.body,
        clientAddress: request.clientAddress)
    request.body = []
    daemon.releaseBody(of: request)
    switch daemon.handler.respond(to: httpRequest) {
    case .now(let response):
        return queue(response, for: request, on: connection, daemon: daemon)
    case .later(let deferred):
        request.deferred = deferred
        request.parkedKey = daemon.park(.deferred(deferred))
        return answer(deferred, for: request, on: connection, daemon: daemon)
    }
}

/// Queues the promised response if it is kept, else parks the connection; closes the
/// connection unanswered (MHD_NO) once the stopping server has given up on parked requests.
private func answer(
    _ deferred: HTTPDeferredResponse,
    for request: RequestContext,
    on connection: OpaquePointer,
    daemon: DaemonContext
) -> MHD_Result {
    switch deferred.responseOrPark(on: ConnectionHandle(raw: connection), abandoning: { daemon.isAbandoning }) {
    case .respond(let response): queue(response, for: request, on: connection, daemon: daemon)
    case .parked: .YES
    case .abandoned: .NO
    }
}

/// MHD_RequestCompletedCallback: the request is over (answered, failed or abandoned).
func handleCompleted(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let cls, let requestSlot, let existing = requestSlot.pointee else { return }
    requestSlot.pointee = nil
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    // Balances the passRetained in handleAccess's first call.
    let request = Unmanaged<RequestContext>.fromOpaque(existing).takeRetainedValue()
    daemon.releaseBody(of: request)
    if let key = request.parkedKey { daemon.unpark(key) }
    request.deferred?.end()
    daemon.requestEnded(request)
}

/// MHD_ContentReaderCallback for streaming bodies.
func readStream(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int)
    -> Int
{
    guard let cls, let buffer else { return MHD_CONTENT_READER_END_WITH_ERROR }
    let stream = Unmanaged<HTTPStream>.fromOpaque(cls).takeUnretainedValue()
    switch stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let count): return count
    // Only after suspending: a bare 0 would make libmicrohttpd spin on this connection.
    case .wait: return 0
    case .end: return MHD_CONTENT_READER_END_OF_STREAM
    }
}

/// MHD_ContentReaderFreeCallback: the streaming response is destroyed, the client gone.
func freeStream(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    // Balances the passRetained in makeResponse.
    Unmanaged<HTTPStream>.fromOpaque(cls).takeRetainedValue().close()
}

/// MHD_LogCallback: libmicrohttpd's own messages (a client gone mid-response, a TLS
/// handshake refused, a socket error), formatted here and handed to the server's log.
func logLibraryMessage(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    // libmicrohttpd logs before it returns a failure whose errno `HTTPServer.start` reads: the
    // log's own write (EAGAIN on a full non-blocking stdout) must not become that errno.
    let savedErrno = errno
    defer { errno = savedErrno }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 1024)
    let written = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
    guard written > 0 else { return }
    let message = String(
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingWhitespace)
    daemon.libraryMessage(message)
}

/// MHD_OPTION_UNESCAPE_CALLBACK: percent-decodes the path and query arguments in place, as
/// libmicrohttpd would, except that `%00` is left as it is. A decoded NUL would end the C
/// string early, and `/v1/sessions/ID%00junk` would be served as `/v1/sessions/ID`; kept
/// encoded, it matches no route, file or token. A CR sent raw is read as a space (RFC 9112
/// 2.2: a recipient must take a bare CR as invalid or as a space); libmicrohttpd left it in
/// the target as data, where a proxy in front may end the request line at it. Returns the
/// new length.
func unescapeKeepingNUL(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ text: UnsafeMutablePointer<CChar>?
) -> Int {
    guard let text else { return 0 }
    // Most paths have nothing escaped and no CR: then there is nothing to rewrite, only a
    // length to report, found in the same pass.
    var read = strcspn(text, "%\r")
    guard text[read] != 0 else { return read }
    var write = read
    while text[read] != 0 {
        // The second digit is read only when the first is one, so never past the terminator.
        if text[read] == CChar(UInt8(ascii: "\r")) {
            text[write] = CChar(UInt8(ascii: " "))
            read += 1
        } else if text[read] == CChar(UInt8(ascii: "%")), let high = hexValue(text[read + 1]),
            let low = hexValue(text[read + 2]), high | low != 0
        {
            text[write] = CChar(bitPattern: high << 4 | low)
            read += 3
        } else {
            text[write] = text[read]
            read += 1
        }
        write += 1
    }
    text[write] = 0
    // The bytes decoding freed are marked, so that a NUL the client sent in the path is told
    // from them (`targetHoldsNUL`): left as they were, they could be any bytes.
    for freed in (write + 1)..<max(read, write + 1) { text[freed] = freedByDecoding }
    return write
}

private func hexValue(_ character: CChar) -> UInt8? {
    let byte = UInt8(bitPattern: character)
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// Queues the response (the prepared one when it has one, else one built now) and logs the request.
private func queue(
    _ response: HTTPResponse,
    for request: RequestContext,
    on connection: OpaquePointer,
    daemon: DaemonContext
) -> MHD_Result {
    let result: MHD_Result
    // A stopping server adds `Connection: close`, which a shared response cannot carry.
    if let prepared = response.prepared, !daemon.isStopping {
        // libmicrohttpd takes its own reference; `response` keeps ours alive until it has.
        result = MHD_queue_response(connection, UInt32(response.status.rawValue), prepared.raw)
    } else {
        guard let mhdResponse = makeResponse(response, for: request, on: connection, daemon: daemon) else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        if daemon.isStopping {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        result = MHD_queue_response(connection, UInt32(response.status.rawValue), mhdResponse)
    }
    daemon.accessLog?(
        HTTPAccessRecord(
            method: request.method, path: request.path, status: response.status, route: response.route,
            duration: ContinuousClock.now - request.started, clientAddress: request.clientAddress))
    return result
}

/// The libmicrohttpd response for `response`, with its headers; the caller destroys it.
private func makeResponse(
    _ response: HTTPResponse,
    for request: RequestContext,
    on connection: OpaquePointer,
    daemon: DaemonContext
) -> OpaquePointer? {
    switch response.body {
    case .bytes(let bytes):
        return makeResponse(bytes: bytes, headers: response.headers)
    case .shared(let run):
        return makeResponse(run: run, headers: response.headers)
    case .pieces(let runs):
        return makeResponse(runs: runs, headers: response.headers)
    case .stream(let stream):
        stream.attach(to: ConnectionHandle(raw: connection))
        // A promise kept with a stream is done: only the stream is left for shutdown to end. Its
        // key is about to be replaced, and handleCompleted unparks only the key it finds.
        if let key = request.parkedKey { daemon.unpark(key) }
        request.parkedKey = daemon.park(.stream(stream))
        daemon.streamStarted(request)
        // Released by freeStream (or right here if libmicrohttpd cannot make the response).
        let retained = Unmanaged.passRetained(stream)
        // The block size is a buffer libmicrohttpd callocs with every such response, used only
        // without chunked encoding (HTTP/1.0): keep it small, since every idle subscriber holds one.
        guard let made = MHD_create_response_from_callback(UInt64.max, 256, readStream, retained.toOpaque(), freeStream)
        else {
            // As freeStream would: the stream's onClose lets go of what it holds (its session's
            // watch, its heartbeat, its lease renewals), which would otherwise stay until restart.
            retained.takeRetainedValue().close()
            return nil
        }
        if request.method == .head {
            // libmicrohttpd 0.9.75 writes a chunked body's last chunk even after the headers of
            // a HEAD answer, which has no body (RFC 9110 9.3.2): the next answer on the
            // connection was read behind those five bytes. Unchunked, the answer is its headers
            // alone, and the connection closes after them, as one of unknown length must.
            _ = CMicroHTTPD_set_response_flags(made, .RF_HTTP_1_0_COMPATIBLE_STRICT)
        }
        addHeaders(response.headers, to: made)
        return made
    }
}
