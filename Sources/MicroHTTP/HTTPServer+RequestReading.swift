import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

// Reading a request out of libmicrohttpd as it arrives: its method, headers and query
// arguments (its framing and announced length: RequestFraming.swift), copied into Swift
// values during the access callback
// (HTTPServer+Callbacks.swift), since libmicrohttpd's strings live only as long as the request.

/// The request's method: a common one as its constant, with no string built for it (every
/// request has one), any other as the client spelled it.
///
/// libmicrohttpd hands the method over as a C string, which a NUL byte sent raw in it ends
/// early: `DELETE<NUL>junk` was read as DELETE, and a proxy in front that passes it on reads
/// another method, one its rules for DELETE do not cover. So the method is measured against
/// where the target starts (`url`), and one that held a NUL gets `%00` after it, as a path
/// does (`requestPath`): it is a method no route has.
func requestMethod(_ name: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?, on connection: OpaquePointer) -> HTTPMethod {
    guard let name else { return HTTPMethod(rawValue: "") }
    let method: HTTPMethod
    let length: Int
    if strcmp(name, "GET") == 0 {
        (method, length) = (.get, 3)
    } else if strcmp(name, "POST") == 0 {
        (method, length) = (.post, 4)
    } else if strcmp(name, "DELETE") == 0 {
        (method, length) = (.delete, 6)
    } else if strcmp(name, "HEAD") == 0 {
        (method, length) = (.head, 4)
    } else if strcmp(name, "OPTIONS") == 0 {
        (method, length) = (.options, 7)
    } else {
        length = strlen(name)
        method = HTTPMethod(rawValue: String(cString: name))
    }
    // Nearly every request: the target right after the NUL libmicrohttpd wrote over the space.
    guard let url, url != name + length + 1 else { return method }
    guard methodHoldsNUL(name, length: length, url: url, on: connection) else { return method }
    return HTTPMethod(rawValue: method.rawValue + "%00")
}

/// Whether the bytes between the method's terminator and the target (`url`) are other than
/// the spaces libmicrohttpd skips there: what followed a NUL the client sent in the method.
private func methodHoldsNUL(
    _ name: UnsafePointer<CChar>, length: Int, url: UnsafePointer<CChar>, on connection: OpaquePointer
) -> Bool {
    let terminator = name + length
    // Both in the request line, itself in the head: else not the layout this reads; left alone.
    guard url > terminator, url - name < CMicroHTTPD_request_header_size(connection) else { return false }
    var at = terminator + 1
    while at < url, at.pointee == CChar(UInt8(ascii: " ")) { at += 1 }
    return at != url
}

/// The request's path: an origin-form target (`/v1/sessions`) as it is; an absolute-form one
/// (`http://host:8080/v1/sessions`, which RFC 9112 section 3.2.2 says a server must accept)
/// without its scheme and authority, `/` when it has no path.
///
/// libmicrohttpd hands the path over as a C string, which a NUL byte sent raw in the target
/// ends early: `/v1/sessions/ID<NUL>junk` would be served as `/v1/sessions/ID`, which is what
/// `unescapeKeepingNUL` prevents for `%00`. So the path is measured against where the target
/// ends in the request line (`version` follows it), and one that held a NUL gets `%00` in its
/// place, as an escaped one keeps it: it matches no route, file or token.
func requestPath(_ url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, on connection: OpaquePointer) -> String {
    guard let url else { return "/" }
    let length = strlen(url)
    let path = url.withMemoryRebound(to: UInt8.self, capacity: length) { requestPath(UnsafeBufferPointer(start: $0, count: length)) }
    // Nearly every request: the target is the path whole, nothing escaped, no query.
    guard let version, url + length != version - 1 else { return path }
    return targetHoldsNUL(url, length: length, end: version - 1, on: connection) ? path + "%00" : path
}

private func requestPath(_ url: UnsafeBufferPointer<UInt8>) -> String {
    // Nearly every request: nothing to look at past the first byte.
    if url.first == UInt8(ascii: "/") { return String(decoding: url, as: UTF8.self) }
    let target = String(decoding: url, as: UTF8.self)
    for scheme in ["http://", "https://"] where target.utf8.count >= scheme.utf8.count {
        let rest = target.utf8.dropFirst(scheme.utf8.count)
        guard zip(target.utf8, scheme.utf8).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { continue }
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return String(target[slash...])
    }
    return target
}

/// Whether the request target, which ends at `end` (the NUL libmicrohttpd wrote over the space
/// before the version), held a NUL byte, in its path past the `length` bytes read of it or in
/// its query (libmicrohttpd reads the query's arguments as C strings too, and stops at the first
/// NUL: `?access_token=TOKEN<NUL>junk` would be read as the token).
///
/// What libmicrohttpd and `unescapeKeepingNUL` leave between the path's terminator and the
/// query's first argument (or the target's end) when the client sent no NUL: nothing (a path
/// as it came), the terminator alone (a query follows: it is where the `?` was), or the
/// terminator, the bytes decoding freed (marked with LF) and, when a query follows, the NUL
/// over its `?`. After the last argument's terminator, only the bytes its decoding freed and
/// the NUL over a trailing `&`. Anything else is bytes the client sent after a NUL of its own.
private func targetHoldsNUL(_ url: UnsafePointer<CChar>, length: Int, end: UnsafePointer<CChar>, on connection: OpaquePointer) -> Bool {
    // Both in the request line, itself in the head: else not the layout this reads; left alone.
    guard end > url, end - url < CMicroHTTPD_request_header_size(connection) else { return false }
    var query = QueryBounds()
    withUnsafeMutablePointer(to: &query) { pointer in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, boundQuery, pointer)
    }
    let stop = query.first ?? end
    let terminator = url + length
    guard terminator < stop, stop <= end else { return terminator != stop }
    var at = terminator + 1
    while at < stop, at.pointee == freedByDecoding { at += 1 }
    if at != stop, !(at > terminator + 1 && at + 1 == stop && at.pointee == 0) { return true }
    guard let last = query.last else { return false }
    let argumentEnd = last + strlen(last)
    guard argumentEnd >= stop, argumentEnd < end else { return false }
    at = argumentEnd + 1
    while at < end, at.pointee == freedByDecoding { at += 1 }
    // A trailing `&` leaves its NUL after them.
    return at != end && !(at + 1 == end && at.pointee == 0)
}

/// What `targetHoldsNUL` gathers of the query's arguments: where the first one's name starts,
/// and the last one's value (its name when it has none).
private struct QueryBounds {
    var first: UnsafePointer<CChar>?
    var last: UnsafePointer<CChar>?
}

/// What `unescapeKeepingNUL` writes over the bytes decoding freed: LF, which ends the request
/// line and so is never in a target.
let freedByDecoding = CChar(UInt8(ascii: "\n"))

/// MHD_KeyValueIterator: `cls` points at the QueryBounds `targetHoldsNUL` is gathering.
private func boundQuery(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let bounds = cls.assumingMemoryBound(to: QueryBounds.self)
    if bounds.pointee.first == nil { bounds.pointee.first = key }
    bounds.pointee.last = value ?? key
    return .YES
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

/// Whether the client waits for `100 Continue` before sending the body: a request with
/// `Expect: 100-continue` in any version but HTTP/1.0, which is when libmicrohttpd sends one
/// (`need_100_continue`): it reads HTTP/1.2 to HTTP/1.9 as HTTP/1.1 and answers any other
/// version itself (400 or 505) before this is asked. Read only for a body refused as too
/// large (`RefusedBodyDrain`).
func expectsContinue(_ connection: OpaquePointer, version: UnsafePointer<CChar>?) -> Bool {
    guard let version, strcmp(version, "HTTP/1.0") != 0,
        let expect = MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect")
    else { return false }
    return strcasecmp(expect, "100-continue") == 0
}
