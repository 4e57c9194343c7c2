import MicroHTTP
import Presentation

/// Reading what a request carries: its token, its JSON body, its query arguments.
extension PresentationAPI {
    /// The session, if the request carries its token (`Authorization: Bearer`, or
    /// `?access_token=` where EventSource needs it).
    func authorizedSession(_ rawID: String, _ request: HTTPRequest, allowQueryToken: Bool = false) throws -> Session {
        let token = try presentedToken(request, allowQueryToken: allowQueryToken)
        let id = try sessionID(rawID)
        guard let session = store.session(id) else { throw PresentationError.sessionNotFound }
        guard session.tokenDigest.matches(token) else { throw APIError.unauthorized }
        return session
    }

    func presentedToken(_ request: HTTPRequest, allowQueryToken: Bool = false) throws(APIError) -> String {
        if let header = request.headers["Authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, String(parts[0]).lowercased() == "bearer" else { throw .unauthorized }
            return String(parts[1]).trimmingSpaces
        }
        if allowQueryToken, let token = request.queryValue("access_token") { return token }
        throw .unauthorized
    }

    func sessionID(_ raw: String) throws(PresentationError) -> SessionID {
        guard let id = SessionID(rawValue: raw) else { throw .sessionNotFound }
        return id
    }

    /// The body as a JSON object. Routes that need nothing accept an empty body.
    func bodyFields(of request: HTTPRequest, allowEmpty: Bool) throws(APIError) -> FieldReader {
        if request.body.isEmpty {
            guard allowEmpty else { throw .malformedJSON("the body is empty; this route needs a JSON object") }
            return try FieldReader(.emptyObject)
        }
        if let type = request.headers["Content-Type"], !Self.isJSON(type) {
            throw .unsupportedMediaType(type)
        }
        do {
            return try FieldReader(try parser.parse(request.body))
        } catch let error as JSONParseError {
            throw .malformedJSON(error.message)
        } catch let error as APIError {
            throw error
        } catch {
            throw .malformedJSON("\(error)")
        }
    }

    /// An integer query argument within `range`, or nil when absent.
    func integerQuery(_ name: String, _ request: HTTPRequest, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard request.hasQuery(name) else { return nil }
        guard let raw = request.queryValue(name), let value = Int(raw), range.contains(value) else {
            throw .invalidQuery(name: name, reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `application/json`, `application/problem+json` and other `+json` types, any parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let media = (contentType.split(separator: ";").first.map(String.init) ?? "").trimmingSpaces.lowercased()
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }
}
