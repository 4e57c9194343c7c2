#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// What libmicrohttpd's callbacks reach through their `cls` pointer: the handler, the
/// limits, and the requests parked on suspended connections.
final class DaemonContext: Sendable {
    /// A request parked on a suspended connection, so that shutdown can release it.
    enum Parked: Sendable {
        case deferred(HTTPDeferredResponse)
        case stream(HTTPStream)
    }

    let handler: any HTTPHandler
    let maxBodyBytes: Int
    let refusedBodyDrain: RefusedBodyDrain
    let bufferedBodies: BufferedBodies
    let headerRoom: HeaderRoom
    let trustedProxies: TrustedProxies
    let connectionsPerAddress: ConnectionsPerAddress?
    let accessLog: (@Sendable (HTTPAccessRecord) -> Void)?
    /// Where libmicrohttpd's own messages go; nil writes them to stderr.
    let libraryLog: (@Sendable (LibraryMessage) -> Void)?
    private let inFlight = Atomic<Int>(0)
    /// Of those in flight, the ones answered with an `HTTPStream` (`streamStarted`).
    private let streamsInFlight = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// Set once the grace period is over: parked requests are closed unanswered.
    private let abandoning = Atomic<Bool>(false)
    /// Set when the stop must not wait out the grace period (a second stop signal).
    private let hurried = Atomic<Bool>(false)
    private let parked = Mutex<[ObjectIdentifier: Parked]>([:])

    init(
        handler: any HTTPHandler,
        maxBodyBytes: Int,
        bufferedBodies: BufferedBodies,
        connectionMemoryBytes: Int,
        trustedProxies: TrustedProxies,
        connectionsPerAddress: ConnectionsPerAddress?,
        accessLog: (@Sendable (HTTPAccessRecord) -> Void)?,
        libraryLog: (@Sendable (LibraryMessage) -> Void)?
    ) {
        self.trustedProxies = trustedProxies
        self.connectionsPerAddress = connectionsPerAddress
        self.libraryLog = libraryLog
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        refusedBodyDrain = RefusedBodyDrain(maxBodyBytes: maxBodyBytes)
        self.bufferedBodies = bufferedBodies
        headerRoom = HeaderRoom(connectionMemoryBytes: connectionMemoryBytes)
        self.accessLog = accessLog
    }

    var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }

    /// Counts `count` more bytes of `request`'s body in `bufferedBodies`; false, counting
    /// nothing, when they do not fit.
    func reserveBody(_ count: Int, for request: RequestContext) -> Bool {
        guard bufferedBodies.reserve(count) else { return false }
        request.bodyReserved += count
        return true
    }

    /// `request`'s body is no longer held here: handed to the handler, dropped, or its
    /// connection gone.
    func releaseBody(of request: RequestContext) {
        guard request.bodyReserved > 0 else { return }
        bufferedBodies.release(request.bodyReserved)
        request.bodyReserved = 0
    }
    var streamedRequestsInFlight: Int { streamsInFlight.load(ordering: .acquiring) }
    var isStopping: Bool { stopping.load(ordering: .acquiring) }
    var isAbandoning: Bool { abandoning.load(ordering: .acquiring) }
    var isHurried: Bool { hurried.load(ordering: .acquiring) }

    /// The stop gives requests in flight no more time: its wait ends at its next look.
    func hurry() {
        hurried.store(true, ordering: .releasing)
    }

    /// A client that leaves mid-response is how every event stream ends, not a fault: those
    /// messages (one per vanished subscriber) are dropped; the rest are passed on.
    func libraryMessage(_ message: String) {
        if message.contains("closed by remote peer") || message.contains("Connection reset")
            || message.contains("no longer available for sending")
        {
            return
        }
        if let libraryLog {
            libraryLog(LibraryMessage(message))
        } else {
            var line = "libmicrohttpd: \(message)\n"
            line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// A request is in flight, and `HTTPServer.stop` waits for it, from when it is answered or
    /// handed to the handler (its body whole) until it completes; not while its body arrives.
    func requestStarted(_ request: RequestContext) {
        request.countedInFlight = true
        inFlight.add(1, ordering: .relaxed)
    }

    func requestEnded(_ request: RequestContext) {
        guard request.countedInFlight else { return }
        // The stream first: `HTTPServer.stop` reads the two apart, and a request counted in
        // neither reads as one less, never as one more, that is not a stream.
        if request.countedAsStream { streamsInFlight.subtract(1, ordering: .releasing) }
        inFlight.subtract(1, ordering: .releasing)
    }

    /// The request in flight is answered with an `HTTPStream`. A stop ends every stream
    /// (`releaseParked`), and a stream's subscriber is one that reconnects and resumes: what
    /// is left of it is its end, which a client that reads nothing never takes. So a stop waits
    /// for these only a moment (`HTTPServer.streamEndMoment`), not its whole grace period.
    func streamStarted(_ request: RequestContext) {
        guard request.countedInFlight, !request.countedAsStream else { return }
        request.countedAsStream = true
        streamsInFlight.add(1, ordering: .relaxed)
    }

    func park(_ item: Parked) -> ObjectIdentifier {
        let key: ObjectIdentifier
        switch item {
        case .deferred(let deferred): key = ObjectIdentifier(deferred)
        case .stream(let stream): key = ObjectIdentifier(stream)
        }
        parked.withLock { $0[key] = item }
        if isStopping { releaseParked() }
        return key
    }

    func unpark(_ key: ObjectIdentifier) {
        _ = parked.withLock { $0.removeValue(forKey: key) }
    }

    /// The daemon is starting (again, after a `stop`): connections are accepted.
    func beginServing() {
        stopping.store(false, ordering: .releasing)
        abandoning.store(false, ordering: .releasing)
        hurried.store(false, ordering: .releasing)
    }

    func beginShutdown() {
        stopping.store(true, ordering: .releasing)
        releaseParked()
    }

    /// The grace period is over: every parked connection is resumed, so that none is suspended
    /// when the daemon stops (libmicrohttpd aborts the process if one is), and one resumed
    /// without an answer is closed (`HTTPDeferredResponse.Parking.abandoned`). A request parked
    /// after this never suspends: `responseOrPark` reads `isAbandoning`, under the lock `wake()`
    /// takes, after `park` registered it.
    func abandonParked() {
        abandoning.store(true, ordering: .releasing)
        let items = parked.withLock { Array($0.values) }
        for item in items {
            switch item {
            case .deferred(let deferred): deferred.wake()
            case .stream(let stream): stream.finish()
            }
        }
    }

    /// Ends every stream and answers every pending promise, outside the registry's lock.
    func releaseParked() {
        let items = parked.withLock { Array($0.values) }
        guard !items.isEmpty else { return }
        let refusal = handler.response(for: .shuttingDown, requestHeaders: HTTPHeaders())
        for item in items {
            switch item {
            case .deferred(let deferred): if deferred.endsWithShutdown { deferred.complete(with: refusal) }
            case .stream(let stream): stream.finish()
            }
        }
    }
}

/// One request's state between libmicrohttpd's calls, held in its `*req_cls` slot.
/// Only the connection's own thread touches it, one call at a time.
final class RequestContext {
    let method: HTTPMethod
    let path: String
    /// Read once, when the headers arrive, for the handler and the access log: the peer's
    /// address, or the client a trusted proxy names (`TrustedProxies`).
    let clientAddress: ClientAddress?
    let started = ContinuousClock.now
    // Unchecked: only libmicrohttpd's thread of the connection touches these, one callback at a
    // time and never through overlapping inout accesses, and the runtime's check of each
    // access cost more than the access (callgrind: about 50 instructions each, several a request).
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var bodyTooLarge = false
    /// Set when a chunk did not fit in `maxBufferedBodyBytes`: the rest is dropped unread.
    @exclusivity(unchecked) var bodyBufferFull = false
    /// The body's bytes that have arrived, kept or not.
    @exclusivity(unchecked) var bodyArrived = 0
    /// The body's `Content-Length`, when it has one.
    @exclusivity(unchecked) var announcedLength: Int?
    /// The body's bytes counted in `DaemonContext.bufferedBodies`.
    @exclusivity(unchecked) var bodyReserved = 0
    /// Counted in `DaemonContext.requestsInFlight` (`requestStarted`).
    @exclusivity(unchecked) var countedInFlight = false
    /// Counted in `DaemonContext.streamedRequestsInFlight` too (`streamStarted`).
    @exclusivity(unchecked) var countedAsStream = false
    @exclusivity(unchecked) var deferred: HTTPDeferredResponse?
    @exclusivity(unchecked) var parkedKey: ObjectIdentifier?

    init(method: HTTPMethod, path: String, clientAddress: ClientAddress?) {
        self.method = method
        self.path = path
        self.clientAddress = clientAddress
    }
}
