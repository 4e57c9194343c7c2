import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

// Reading a request out of libmicrohttpd as it arrives: its method, announced length,
// headers and query arguments, copied into Swift values during the access callback
// (HTTPServer+Callbacks.swift), since libmicrohttpd's strings live only as long as the request.

/// The request's method: a common one as its constant, with no string built for it (every
/// request has one), any other as the client spelled it.
func requestMethod(_ name: UnsafePointer<CChar>?) -> HTTPMethod {
    guard let name else { return HTTPMethod(rawValue: "") }
    if strcmp(name, "GET") == 0 { return .get }
    if strcmp(name, "POST") == 0 { return .post }
    if strcmp(name, "DELETE") == 0 { return .delete }
    if strcmp(name, "HEAD") == 0 { return .head }
    if strcmp(name, "OPTIONS") == 0 { return .options }
    return HTTPMethod(rawValue: String(cString: name))
}

/// The request's path: an origin-form target (`/v1/sessions`) as it is; an absolute-form one
/// (`http://host:8080/v1/sessions`, which RFC 9112 section 3.2.2 says a server must accept)
/// without its scheme and authority, `/` when it has no path.
func requestPath(_ url: UnsafePointer<CChar>?) -> String {
    guard let url else { return "/" }
    // Nearly every request: nothing to look at past the first byte.
    if UInt8(bitPattern: url.pointee) == UInt8(ascii: "/") { return String(cString: url) }
    let target = String(cString: url)
    for scheme in ["http://", "https://"] where target.utf8.count >= scheme.utf8.count {
        let rest = target.utf8.dropFirst(scheme.utf8.count)
        guard zip(target.utf8, scheme.utf8).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { continue }
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return String(target[slash...])
    }
    return target
}

/// The Content-Length `value` announces: its digits read from the C string in place (every
/// request with a body asks, and a `String` of them cost an allocation-sized detour).
private func contentLength(_ value: UnsafePointer<CChar>) -> Int? {
    var length = 0
    var index = 0
    while case let byte = UInt8(bitPattern: value[index]), byte != 0 {
        // Not a number: libmicrohttpd answers 400 itself. More than 18 digits: more than any
        // body we take, refused as too large without counting further.
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        guard index < 18 else { return .max }
        length = length * 10 + Int(byte - UInt8(ascii: "0"))
        index += 1
    }
    return index == 0 ? nil : length
}

/// Every header or query argument of the request, in order (MHD_get_connection_values).
func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String?)] {
    var collected: [(name: String, value: String?)] = []
    withUnsafeMutablePointer(to: &collected) { pointer in
        _ = MHD_get_connection_values(connection, kind, collectValue, pointer)
    }
    return collected
}

/// Every header of the request, in order; a header without a value has an empty one.
func headers(of connection: OpaquePointer) -> HTTPHeaders {
    // The C strings are libmicrohttpd's, valid until the request ends: their addresses are
    // gathered on the stack first, then copied into one block sized for them (HTTPHeaders).
    withUnsafeTemporaryAllocation(of: HTTPHeaders.CStringField.self, capacity: CollectedHeaders.onStack) { buffer in
        var collected = CollectedHeaders(buffer: buffer)
        withUnsafeMutablePointer(to: &collected) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
        }
        let gathered = UnsafeBufferPointer(rebasing: buffer[..<collected.count])
        guard !collected.overflow.isEmpty else { return HTTPHeaders(cStrings: gathered) }
        return (Array(gathered) + collected.overflow).withUnsafeBufferPointer { HTTPHeaders(cStrings: $0) }
    }
}

/// What `headers(of:)` gathers: the fields' addresses, on the stack for a request's usual
/// few, in an array past those.
private struct CollectedHeaders {
    static let onStack = 32
    let buffer: UnsafeMutableBufferPointer<HTTPHeaders.CStringField>
    var count = 0
    var overflow: [HTTPHeaders.CStringField] = []

    init(buffer: UnsafeMutableBufferPointer<HTTPHeaders.CStringField>) {
        self.buffer = buffer
    }

    mutating func append(_ field: HTTPHeaders.CStringField) {
        guard count < buffer.count else { return overflow.append(field) }
        buffer.initializeElement(at: count, to: field)
        count += 1
    }
}

/// MHD_KeyValueIterator: `cls` points at the CollectedHeaders `headers(of:)` is filling.
private func collectHeader(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: CollectedHeaders.self).pointee.append(HTTPHeaders.CStringField(name: key, value: value))
    return .YES
}

/// MHD_KeyValueIterator: `cls` points at the array `values(of:kind:)` is filling.
private func collectValue(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: [(name: String, value: String?)].self).pointee
        .append((name: String(cString: key), value: value.map { String(cString: $0) }))
    return .YES
}

/// Where the request came from: the peer, or the client a trusted proxy in front names.
func clientAddress(of connection: OpaquePointer, trusting proxies: TrustedProxies) -> ClientAddress? {
    guard let peer = CMicroHTTPD_client_address(connection).flatMap(ClientAddress.init) else { return nil }
    if proxies.isEmpty { return peer }
    return proxies.client(of: peer) {
        // Behind a proxy this runs for every request: only the fields asked for become strings.
        var fields: [String] = []
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, collectForwardedFor, pointer)
        }
        return fields
    }
}

/// MHD_KeyValueIterator: `cls` points at the array `clientAddress(of:trusting:)` is filling
/// with the values of the request's `X-Forwarded-For` fields.
private func collectForwardedFor(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    // Most names fail at their first letter; strcasecmp is a call of about 40 instructions.
    guard let cls, let key, let value, UInt8(bitPattern: key.pointee) | 0x20 == UInt8(ascii: "x"),
        strcasecmp(key, "X-Forwarded-For") == 0
    else { return .YES }
    cls.assumingMemoryBound(to: [String].self).pointee.append(String(cString: value))
    return .YES
}

/// The fields that say where a request ends and whom it is for, gathered in one pass over its
/// headers, for the checks libmicrohttpd 0.9.75 leaves out (RFC 9112, sections 3.2 and 6): it
/// takes the first of two Content-Lengths, reads chunks and keeps the connection open when a
/// Content-Length comes with them, waits for the close on any coding other than `chunked`,
/// and answers a request without a Host or with two. Each leaves a proxy in front and this
/// server disagreeing on where the next request begins, or on which host this one is for.
struct RequestFraming {
    /// The first Content-Length, read as a number: nil without one, or when it is not a number
    /// (libmicrohttpd refuses that itself). Gathered here, in the one pass every request makes,
    /// rather than by a lookup of its own: each walks the headers.
    private(set) var contentLength: Int?
    /// The header fields, each of which costs libmicrohttpd a record in the connection's memory.
    private(set) var fields = 0
    private var hosts = 0
    private var lengths = 0
    /// True once a Content-Length differs from the first.
    private var lengthsDiffer = false
    private var firstLength: UnsafePointer<CChar>?
    private var codings = 0
    /// True when the one Transfer-Encoding is `chunked`, spelled as libmicrohttpd reads it.
    private var chunked = false

    init(of connection: OpaquePointer) {
        withUnsafeMutablePointer(to: &self) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, collectFraming, pointer)
        }
    }

    /// Why the request cannot be read safely, or nil. `version` is the request line's.
    func refusal(version: UnsafePointer<CChar>?) -> HTTPRefusal? {
        if codings > 0 {
            // RFC 9112 6.1 allows reading such a request by its chunks, but then the connection
            // must be closed after it: refusing is as safe, and answers before the body.
            if lengths > 0 {
                return .invalidHeader(name: "Transfer-Encoding", reason: "sent with Content-Length, which one frames the body is unclear")
            }
            if codings > 1 || !chunked {
                return .invalidHeader(name: "Transfer-Encoding", reason: "only chunked is read")
            }
        }
        if lengthsDiffer { return .invalidHeader(name: "Content-Length", reason: "sent twice with different values") }
        if hosts > 1 { return .invalidHeader(name: "Host", reason: "sent more than once") }
        // HTTP/1.0 has no Host requirement; HTTP/1.1 has (libmicrohttpd answers any other version 505).
        if hosts == 0, let version, strcmp(version, "HTTP/1.0") != 0 {
            return .invalidHeader(name: "Host", reason: "required in HTTP/1.1")
        }
        return nil
    }

    fileprivate mutating func add(name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) {
        fields += 1
        // Most names fail at their first letter, before any strcasecmp.
        switch UInt8(bitPattern: name.pointee) | 0x20 {
        case UInt8(ascii: "h"):
            if strcasecmp(name, "Host") == 0 { hosts += 1 }
        case UInt8(ascii: "c"):
            guard strcasecmp(name, "Content-Length") == 0 else { return }
            lengths += 1
            // No value is not a number: libmicrohttpd refuses that itself.
            guard let value else { return }
            if let first = firstLength {
                if strcmp(first, value) != 0 { lengthsDiffer = true }
            } else {
                firstLength = value
                contentLength = MicroHTTP.contentLength(value)
            }
        case UInt8(ascii: "t"):
            guard strcasecmp(name, "Transfer-Encoding") == 0 else { return }
            codings += 1
            chunked = value.map { strcasecmp($0, "chunked") == 0 } ?? false
        default:
            return
        }
    }
}

/// MHD_KeyValueIterator: `cls` points at the RequestFraming being gathered.
private func collectFraming(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: RequestFraming.self).pointee.add(name: key, value: value)
    return .YES
}
