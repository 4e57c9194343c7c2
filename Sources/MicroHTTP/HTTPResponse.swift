/// A response: status, headers and a body that is either bytes or a stream.
public struct HTTPResponse: Sendable {
    /// What follows the headers.
    public enum Body: Sendable {
        /// The whole body, known now.
        case bytes([UInt8])
        /// The whole body, known now, sent from where it is without being copied.
        case shared(SharedBytes)
        /// The whole body, known now, as runs sent one after another from where they are:
        /// an answer that wraps a run a cache keeps (a session's JSON) in a few bytes of its
        /// own. Copied whole, each such answer held its own copy of the run for as long as
        /// its client took to read it.
        case pieces([SharedBytes])
        /// A body written later, piece by piece, until the stream finishes (Server-Sent Events).
        case stream(HTTPStream)

        /// The whole body's bytes; nil for a stream.
        public var wholeBytes: [UInt8]? {
            switch self {
            case .bytes(let bytes): bytes
            case .shared(let run): run.bytes
            case .pieces(let runs): runs.flatMap(\.bytes)
            case .stream: nil
            }
        }

        /// How many bytes the body holds; 0 for a stream.
        public var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .shared(let run): run.count
            case .pieces(let runs): runs.reduce(0) { $0 + $1.count }
            case .stream: 0
            }
        }
    }

    public var status: HTTPStatus { didSet { prepared = nil } }
    public var headers: HTTPHeaders { didSet { prepared = nil } }
    public var body: Body { didSet { prepared = nil } }
    /// libmicrohttpd's response built from exactly this status, these headers and this body
    /// (`HTTPPreparedResponse.response`), sent instead of building another. Changing any of
    /// the three drops it.
    public internal(set) var prepared: HTTPPreparedResponse?
    /// The route pattern the handler matched, for the access log and metrics: a label
    /// that never carries ids, so that it can be counted. Not sent.
    public var route: String?

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }
}

/// What a handler gives back: a response now, or a promise of one (long polling).
public enum HTTPReply: Sendable {
    case now(HTTPResponse)
    /// The connection is parked without holding a thread until the response is completed.
    case later(HTTPDeferredResponse)

    /// The same reply, with each of `headers` its response lacks (`HTTPHeaders.addAbsent`),
    /// whenever that response comes.
    public func addingAbsent(_ headers: HTTPHeaders) -> HTTPReply {
        guard !headers.isEmpty else { return self }
        switch self {
        case .now(var response):
            response.headers.addAbsent(headers)
            return .now(response)
        case .later(let deferred):
            deferred.addHeaders(headers)
            return self
        }
    }
}

/// Answers requests. Called on libmicrohttpd's worker threads, so it must not block:
/// anything that waits returns `.later` or a streaming body instead.
public protocol HTTPHandler: Sendable {
    func respond(to request: HTTPRequest) -> HTTPReply
    /// The answer to a request refused before it reached `respond(to:)`, given its headers
    /// for what every answer carries (CORS's). A parked request released at shutdown comes
    /// with none: its answer also gets the headers its promise was given (`addHeaders`).
    func response(for refusal: HTTPRefusal, requestHeaders: HTTPHeaders) -> HTTPResponse
}
