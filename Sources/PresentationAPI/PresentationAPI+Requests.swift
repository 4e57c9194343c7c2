#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import JSON
import MicroHTTP
import Presentation

/// Reading what a request carries: its token, its JSON body, its query arguments.
extension PresentationAPI {
    /// The session, if the request carries its token (`Authorization: Bearer`, or
    /// `?access_token=` where EventSource needs it).
    func authorizedSession(_ rawID: Substring, _ request: HTTPRequest, allowQueryToken: Bool = false) throws -> Session {
        try authorizedSession(rawID, digest: try presentedDigest(request, allowQueryToken: allowQueryToken))
    }

    /// The same for the token whose digest the caller read; the read keeps the session alive
    /// only when `answerable` says the request will be answered, not refused, so that a refused
    /// read, like a refused change, leaves the session's idle deadline as it was.
    func authorizedSession(
        _ rawID: Substring, digest: SessionTokenDigest, answerable: (borrowing Session) -> Bool = { _ in true }
    ) throws -> Session {
        let id = try sessionID(rawID)
        // Only the owner's read keeps the session alive.
        var owner = false
        guard let session = store.session(id, countingAsUse: { session in
            owner = session.tokenDigest.matches(digest)
            return owner && answerable(session)
        }) else {
            throw PresentationError.sessionNotFound
        }
        guard owner else { throw APIError.unauthorized }
        return session
    }

    /// The digest of the token the request presents (`Authorization: Bearer`, or
    /// `?access_token=` where allowed): only digests are ever compared, and
    /// hashing the header's bytes in place spares every request a copy of its token.
    func presentedDigest(_ request: HTTPRequest, allowQueryToken: Bool = false) throws(APIError) -> SessionTokenDigest {
        // nil: no Authorization header; .some(nil): one that is not a bearer token.
        var fromHeader: SessionTokenDigest??
        var repeated = false
        request.headers.withValue("Authorization") { header, twice in
            fromHeader = header.map(Self.bearerTokenDigest(in:))
            repeated = twice
        }
        // Two tokens are refused rather than one picked: a proxy in front may have judged the
        // request by the other.
        if repeated { throw .invalidHeader(name: "Authorization", reason: "sent more than once; a request carries one token") }
        if let fromHeader {
            guard let digest = fromHeader else { throw .unauthorized }
            return digest
        }
        guard allowQueryToken, let index = request.query.firstIndex(where: { $0.name == "access_token" }) else {
            throw .unauthorized
        }
        // One token, as in the header: a proxy in front may have read the last of two.
        if request.query[(index + 1)...].contains(where: { $0.name == "access_token" }) {
            throw .invalidQuery(name: "access_token", reason: "sent more than once; a request carries one token")
        }
        guard let token = request.query[index].value else { throw .unauthorized }
        return SessionTokenDigest(hashing: token)
    }

    /// The digest of the token of `Bearer <token>`: the scheme in any case, spaces and tabs
    /// around the token ignored; nil for another scheme or no token. Read byte by byte, in
    /// place, as every request's is.
    static func bearerTokenDigest(in bytes: UnsafeBufferPointer<UInt8>) -> SessionTokenDigest? {
        let space = UInt8(ascii: " ")
        let isBlank = { (byte: UInt8) in byte == space || byte == UInt8(ascii: "\t") }
        guard let schemeStart = bytes.firstIndex(where: { $0 != space }) else { return nil }
        let schemeEnd = bytes[schemeStart...].firstIndex(of: space) ?? bytes.endIndex
        // `| 0x20` lowers ASCII letters; no other byte lowers onto one of these letters.
        // Compared by index: iterating a literal's UTF-8 view cost more than the rest of this.
        let bearer: StaticString = "bearer"
        guard schemeEnd - schemeStart == bearer.utf8CodeUnitCount,
            (0..<bearer.utf8CodeUnitCount).allSatisfy({ bytes[schemeStart + $0] | 0x20 == bearer.utf8Start[$0] }),
            let tokenStart = bytes[schemeEnd...].firstIndex(where: { !isBlank($0) }),
            let tokenLast = bytes[tokenStart...].lastIndex(where: { !isBlank($0) })
        else { return nil }
        return SessionTokenDigest(hashing: UnsafeBufferPointer(rebasing: bytes[tokenStart...tokenLast]))
    }

    func sessionID(_ raw: Substring) throws(PresentationError) -> SessionID {
        guard let id = SessionID(raw) else { throw .sessionNotFound }
        return id
    }

    /// The body as a JSON object. Routes that need nothing accept an empty body.
    func bodyFields(of request: HTTPRequest, allowEmpty: Bool, parser: JSONParser? = nil) throws(APIError) -> FieldReader {
        if request.body.isEmpty {
            guard allowEmpty else { throw .malformedJSON("the body is empty; this route needs a JSON object") }
            return try FieldReader(.emptyObject)
        }
        if !Self.declaresJSON(request.headers) {
            throw .unsupportedMediaType(request.headers.values("Content-Type").joined(separator: ", "))
        }
        do {
            return try FieldReader(try (parser ?? self.parser).parse(request.body))
        } catch let error as JSONParseError {
            throw .malformedJSON(error.message)
        } catch let error as APIError {
            throw error
        } catch {
            throw .malformedJSON("\(error)")
        }
    }

    /// The step of a push, replace, set-root or present whose body is plain JSON of the right
    /// media type, read without a tree (`OperationDecoding.plainScreenStep`); nil sends the
    /// request through `bodyFields`, which takes or refuses anything else.
    func plainStep(_ kind: OperationKind, _ request: HTTPRequest) -> Step? {
        guard !request.body.isEmpty, Self.declaresJSON(request.headers) else { return nil }
        return OperationDecoding.plainScreenStep(kind, body: request.body, parser: parser)
    }

    /// A creation's root and lifetime when its body is plain JSON of the right media type,
    /// read without a tree (`OperationDecoding.plainCreation`); nil sends the request through
    /// `bodyFields`, as `plainStep` does.
    func plainCreation(_ request: HTTPRequest) -> (root: ScreenSpec, timeToLive: Int?)? {
        guard !request.body.isEmpty, Self.declaresJSON(request.headers) else { return nil }
        return OperationDecoding.plainCreation(body: request.body, parser: creationParser)
    }

    /// An integer query argument within `range`, or nil when absent.
    func integerQuery(_ name: String, _ request: HTTPRequest, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard request.hasQuery(name) else { return nil }
        guard let raw = request.queryValue(name), let value = Int(decimalDigits: raw), range.contains(value) else {
            throw .invalidQuery(name: name, reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// Whether the request's `Content-Type`, when it has one, is JSON (`isJSON`). Read in the
    /// header's bytes: as a `String`, `application/json` is one byte past what Swift keeps
    /// inline, and every write paid an allocation for it.
    static func declaresJSON(_ headers: HTTPHeaders) -> Bool {
        var json = true
        headers.withValue("Content-Type") { value, repeated in
            guard let value else { return }
            // Two media types name none: refused as not JSON (415), whatever each says.
            json = !repeated && (isCommonJSON(value) || isJSON(String(decoding: value, as: UTF8.self)))
        }
        return json
    }

    /// Whether `bytes` spell `application/json` exactly: every write carries it, so it is
    /// checked first, in place (compared through `elementsEqual`, UTF-8 views cost 700
    /// instructions a write).
    private static func isCommonJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let common: StaticString = "application/json"
        guard bytes.count == common.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, common.utf8Start, bytes.count) == 0
    }

    /// `application/json`, `application/problem+json` and other `+json` types, any parameters.
    static func isJSON(_ contentType: String) -> Bool {
        if contentType.utf8.withContiguousStorageIfAvailable(isCommonJSON) == true { return true }
        let media = (contentType.split(separator: ";").first.map(String.init) ?? "").trimmingSpaces.lowercased()
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }
}
