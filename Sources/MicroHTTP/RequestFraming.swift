import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The fields that say where a request ends and whom it is for, gathered in one pass over its
/// headers, for the checks libmicrohttpd 0.9.75 leaves out (RFC 9112, sections 3.2 and 6): it
/// takes the first of two Content-Lengths, reads chunks and keeps the connection open when a
/// Content-Length comes with them, waits for the close on any coding other than `chunked`,
/// answers a request without a Host, with two or with one that is no host, keeps a space
/// before a field's colon as part of its name, and a CR not followed by LF in its value. Each
/// leaves a proxy in front and this server disagreeing on where the next request begins, or
/// on which host this one is for.
struct RequestFraming {
    /// The first Content-Length, read as a number: nil without one, or when it is not a number
    /// (libmicrohttpd refuses that itself). Gathered here, in the one pass every request makes,
    /// rather than by a lookup of its own: each walks the headers.
    private(set) var contentLength: Int?
    /// The header fields, each of which costs libmicrohttpd a record in the connection's memory.
    private(set) var fields = 0
    private var hosts = 0
    private var host: UnsafePointer<CChar>?
    private var lengths = 0
    /// True once a Content-Length differs from the first.
    private var lengthsDiffer = false
    private var firstLength: UnsafePointer<CChar>?
    private var codings = 0
    /// True when the one Transfer-Encoding is `chunked`, spelled as libmicrohttpd reads it.
    private var chunked = false
    /// The request's head, which starts at `head` (the method) and holds `headSize` bytes: the
    /// bytes between a field's name and its value are read only where both are in it.
    private let head: Range<UnsafePointer<CChar>>?
    /// The name of the first field whose name ends in a byte no name may hold.
    private var badName: UnsafePointer<CChar>?
    /// The first CR left in the head's fields, and the name of the field that holds it.
    private var bareCR: UnsafePointer<CChar>?
    private var bareCRField: UnsafePointer<CChar>?
    /// The last field's name, and where it ends (its value's terminator, or its name's).
    private var last: (name: UnsafePointer<CChar>, end: UnsafePointer<CChar>)?
    /// The name of the first field followed by more than libmicrohttpd's NULs (`checkGap`).
    private var heldNUL: UnsafePointer<CChar>?

    /// `version` is the request line's last word: the fields follow it in the head.
    init(of connection: OpaquePointer, head: UnsafePointer<CChar>?, headSize: Int, version: UnsafePointer<CChar>?) {
        let head = head.flatMap { headSize > 0 ? $0..<$0 + headSize : nil }
        self.head = head
        // libmicrohttpd writes NULs over each CRLF and ends a line at a bare LF, but leaves a CR
        // not followed by LF where it was, in the value: `X-A: a<CR>Content-Length: 14` had no
        // Content-Length here, and one for a proxy that ends a line at a bare CR. RFC 9112 2.2
        // and RFC 9110 5.5 have such a field refused (or the CR read as a space). Looked for from
        // the version on, so that a `%0D` the target decoded to a CR in place is not mistaken
        // for one; a bare CR in the target is in the path, which no route has.
        if let head, let version, head.contains(version) {
            bareCR = memchr(version, Int32(UInt8(ascii: "\r")), version.distance(to: head.upperBound))
                .map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
        }
        withUnsafeMutablePointer(to: &self) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, collectFraming, pointer)
        }
        if let end = head?.upperBound { checkGap(upTo: end) }
    }

    /// Why the request cannot be read safely, or nil. `version` is the request line's.
    func refusal(version: UnsafePointer<CChar>?) -> HTTPRefusal? {
        if let heldNUL {
            return .invalidHeader(name: String(cString: heldNUL), reason: "holds a NUL byte or a line folded onto the next")
        }
        if bareCR != nil {
            return .invalidHeader(name: bareCRField.map { String(cString: $0) } ?? "request line", reason: "holds a CR not followed by LF")
        }
        if let badName {
            return .invalidHeader(name: String(cString: badName), reason: "has whitespace or another byte no name holds before its colon")
        }
        if codings > 0 {
            // RFC 9112 6.1 allows reading such a request by its chunks, but then the connection
            // must be closed after it: refusing is as safe, and answers before the body.
            if lengths > 0 {
                return .invalidHeader(name: "Transfer-Encoding", reason: "sent with Content-Length, which one frames the body is unclear")
            }
            // RFC 9112 6.1: in HTTP/1.0 the framing MUST be taken as faulty and the connection
            // closed after the request; libmicrohttpd read the chunks and, asked for keep-alive,
            // kept the connection for a next request that an HTTP/1.0 proxy reads as this body.
            if let version, strcmp(version, "HTTP/1.0") == 0 {
                return .invalidHeader(name: "Transfer-Encoding", reason: "not read in HTTP/1.0")
            }
            if codings > 1 || !chunked {
                return .invalidHeader(name: "Transfer-Encoding", reason: "only chunked is read")
            }
        }
        if lengthsDiffer { return .invalidHeader(name: "Content-Length", reason: "sent twice with different values") }
        if hosts > 1 { return .invalidHeader(name: "Host", reason: "sent more than once") }
        // RFC 9112 3.2: a Host that is no host and port MUST be answered 400, as a missing one.
        if let host, !isHost(host) { return .invalidHeader(name: "Host", reason: "expected a host and an optional port") }
        // HTTP/1.0 has no Host requirement; HTTP/1.1 has (libmicrohttpd answers any other version 505).
        if hosts == 0, let version, strcmp(version, "HTTP/1.0") != 0 {
            return .invalidHeader(name: "Host", reason: "required in HTTP/1.1")
        }
        return nil
    }

    fileprivate mutating func add(name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) {
        fields += 1
        if badName == nil, nameEndsBadly(name, value) { badName = name }
        if head != nil {
            checkGap(upTo: name)
            last = (name, value.map { $0 + strlen($0) } ?? name + strlen(name))
        }
        // The fields come in the order of their lines: the last one to start before the CR holds it.
        if let bareCR, name < bareCR { bareCRField = name }
        // Most names fail at their first letter, before any strcasecmp.
        switch UInt8(bitPattern: name.pointee) | 0x20 {
        case UInt8(ascii: "h"):
            if strcasecmp(name, "Host") == 0 {
                hosts += 1
                host = value
            }
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

extension RequestFraming {
    /// Checks the bytes from the last field's end to `next`, the next field's name or the head's
    /// end. libmicrohttpd hands each field over as a C string, and one that held a NUL was read
    /// as what came before it: `Authorization: Bearer TOKEN<NUL>junk` as the token, the rest
    /// unseen here but not by a proxy in front. Between a field's end and the next one's name
    /// it leaves only the NULs it wrote over the line's end; anything else followed a NUL the
    /// client sent, or is a line folded onto the next (`obs-fold`, which 0.9.75 does not join
    /// either): RFC 9110 5.5 and RFC 9112 5.2 have such a request refused. A field not where
    /// its line was (libmicrohttpd moves a folded one) is not checked against its neighbours:
    /// the bytes between are not theirs.
    fileprivate mutating func checkGap(upTo next: UnsafePointer<CChar>) {
        guard heldNUL == nil, let head, let last, head.contains(last.end), last.end < next, next <= head.upperBound else {
            return
        }
        var at = last.end
        while at < next, at.pointee == 0 { at += 1 }
        if at < next { heldNUL = last.name }
    }

    /// Whether the field's name ends in whitespace or another byte no name holds (RFC 9110 5.1).
    /// libmicrohttpd 0.9.75 keeps what came before the colon as the name, so `Content-Length : 14`
    /// was a field no one reads, and the request had no body here, but one for a proxy that
    /// trims the space: RFC 9112 5.1 has a server answer such a request 400.
    ///
    /// Found from the value back, in O(1): libmicrohttpd writes a NUL over the colon and points
    /// the value past the spaces after it, in place, so before the value are those spaces, the
    /// NUL, and the name's last byte. A field not laid out so (one moved by a fold) is left alone.
    fileprivate func nameEndsBadly(_ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>?) -> Bool {
        guard let value, let head, name < value, head.contains(name), head.contains(value) else { return false }
        var at = value - 1
        while at > name, at.pointee == CChar(UInt8(ascii: " ")) || at.pointee == CChar(UInt8(ascii: "\t")) { at -= 1 }
        guard at > name, at.pointee == 0 else { return false }
        return !isTokenByte(UInt8(bitPattern: (at - 1).pointee))
    }
}

/// Whether `value` is `uri-host [ ":" port ]` (RFC 9110 7.2, RFC 3986 3.2.2), empty included
/// (RFC 9110 7.2 has a client send an empty Host when the target has no authority), with the
/// spaces after it that libmicrohttpd leaves in a value. One pass over its bytes; every request
/// has one, so no String is made of it.
private func isHost(_ value: UnsafePointer<CChar>) -> Bool {
    var at = value
    if at.pointee == CChar(UInt8(ascii: "[")) {
        // IP-literal: an IPv6 address, or IPvFuture, which is made of the same bytes and `v`;
        // an IPv6 address may carry a zone (`fe80::1%25eth0`, RFC 6874), which Python's urllib
        // sends with a bare `%` (`[fe80::1%eth0]:8080`), as draft-ietf-6man-rfc6874bis spells it.
        at += 1
        while at.pointee != CChar(UInt8(ascii: "]")) {
            let byte = UInt8(bitPattern: at.pointee)
            guard isUnreservedOrSubDelim(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "%") else { return false }
            at += 1
        }
        at += 1
    } else {
        // reg-name or IPv4address: the second hex digit is read only when the first is one.
        while true {
            if isUnreservedOrSubDelim(UInt8(bitPattern: at.pointee)) {
                at += 1
            } else if at.pointee == CChar(UInt8(ascii: "%")), isHexDigit(at[1]), isHexDigit(at[2]) {
                at += 3
            } else {
                break
            }
        }
    }
    if at.pointee == CChar(UInt8(ascii: ":")) {
        at += 1
        while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(UInt8(bitPattern: at.pointee)) { at += 1 }
    }
    while at.pointee == CChar(UInt8(ascii: " ")) || at.pointee == CChar(UInt8(ascii: "\t")) { at += 1 }
    return at.pointee == 0
}

/// `unreserved` or `sub-delims` (RFC 3986 2.2, 2.3).
private func isUnreservedOrSubDelim(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
        UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
        UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
        return true
    default:
        return false
    }
}

private func isHexDigit(_ character: CChar) -> Bool {
    switch UInt8(bitPattern: character) {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
        return true
    default:
        return false
    }
}

/// Whether `byte` is a `tchar`, which field names are made of (RFC 9110 5.6.2).
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
        UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
        UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        return true
    default:
        return false
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
