import MicroHTTP

/// Which other origins' pages may call the API from a browser (CORS), and what they may send.
///
/// Off by default: a page served by this server needs none, and every origin added is one
/// more place a token typed into a page can be used from. Tokens travel in `Authorization`,
/// never in cookies, so credentials are never allowed.
public struct CORSPolicy: Hashable, Sendable {
    /// Exact origins (`https://app.example.com`), or `*` for any.
    public let allowedOrigins: Set<String>

    /// Request headers a cross-origin page may send.
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, Prefer"
    /// Response headers a cross-origin page may read.
    static let exposedHeaders = "ETag, Location, Retry-After, Idempotent-Replayed, Preference-Applied, Content-Disposition"
    /// How long a browser may cache a preflight answer, in seconds.
    static let maxAge = "600"

    public init(allowedOrigins: some Sequence<String> = []) {
        self.allowedOrigins = Set(allowedOrigins)
    }

    public var isEnabled: Bool { !allowedOrigins.isEmpty }

    /// An origin as browsers send it: `*`, or `scheme://host[:port]` with nothing after.
    /// `allows` matches exactly, and a browser's `Origin` is lowercase, never a pattern, and
    /// leaves out its scheme's default port: `https://App.example.com`, `https://*.example.com`
    /// or `https://app.example.com:443` would match no page, the operator's CORS silently off.
    public static func isValidOrigin(_ origin: String) -> Bool {
        if origin == "*" { return true }
        guard let schemeEnd = origin.firstRange(of: "://") else { return false }
        let scheme = origin[..<schemeEnd.lowerBound]
        let authority = origin[schemeEnd.upperBound...]
        guard (scheme == "http" || scheme == "https") && !authority.isEmpty
            && !authority.contains(where: { "/?# *@".contains($0) || ("A"..."Z").contains($0) })
        else { return false }
        // The port follows the last colon after an IPv6 host's closing bracket.
        let host = authority.lastIndex(of: "]").map { authority[$0...] } ?? authority
        guard let colon = host.lastIndex(of: ":") else { return true }
        let port = host[host.index(after: colon)...]
        let defaultPort = scheme == "https" ? "443" : "80"
        return !port.isEmpty && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) && port != defaultPort
    }

    func allows(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin)
    }

    /// Headers that let a page from `origin` read an ordinary answer; none for other origins.
    func responseHeaders(for request: HTTPRequest) -> HTTPHeaders {
        // Every request comes here: with CORS off, no header is looked up.
        guard isEnabled else { return HTTPHeaders() }
        return responseHeaders(origin: request.headers["Origin"])
    }

    /// The same for a request's `Origin`, nil when it sent none.
    func responseHeaders(origin: String?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard isEnabled else { return headers }
        // The answer depends on Origin whenever CORS is on, even when this origin is refused.
        headers.set("Vary", "Origin")
        guard let origin, allows(origin) else { return headers }
        headers.set("Access-Control-Allow-Origin", origin)
        headers.set("Access-Control-Expose-Headers", Self.exposedHeaders)
        return headers
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) on a path
    /// that takes `allowed`; for a refused origin, no CORS headers, so the browser refuses.
    func preflightHeaders(for request: HTTPRequest, allowed: [HTTPMethod]) -> HTTPHeaders {
        var headers = responseHeaders(for: request)
        guard headers["Access-Control-Allow-Origin"] != nil,
            let requested = request.headers["Access-Control-Request-Method"],
            allowed.contains(HTTPMethod(rawValue: requested))
        else {
            return isEnabled ? ["Vary": "Origin"] : HTTPHeaders()
        }
        headers.set("Access-Control-Allow-Methods", allowed.map(\.rawValue).joined(separator: ", "))
        headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
        headers.set("Access-Control-Max-Age", Self.maxAge)
        return headers
    }
}
