/// An HTTP status code with the reason phrase problem details use as their title.
public struct HTTPStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { "\(rawValue) \(reasonPhrase)" }

    public static let ok = HTTPStatus(rawValue: 200)
    public static let created = HTTPStatus(rawValue: 201)
    public static let noContent = HTTPStatus(rawValue: 204)
    public static let notModified = HTTPStatus(rawValue: 304)
    public static let badRequest = HTTPStatus(rawValue: 400)
    public static let unauthorized = HTTPStatus(rawValue: 401)
    public static let forbidden = HTTPStatus(rawValue: 403)
    public static let notFound = HTTPStatus(rawValue: 404)
    public static let methodNotAllowed = HTTPStatus(rawValue: 405)
    public static let notAcceptable = HTTPStatus(rawValue: 406)
    public static let conflict = HTTPStatus(rawValue: 409)
    public static let gone = HTTPStatus(rawValue: 410)
    public static let preconditionFailed = HTTPStatus(rawValue: 412)
    public static let contentTooLarge = HTTPStatus(rawValue: 413)
    public static let unsupportedMediaType = HTTPStatus(rawValue: 415)
    public static let unprocessableContent = HTTPStatus(rawValue: 422)
    public static let preconditionRequired = HTTPStatus(rawValue: 428)
    public static let tooManyRequests = HTTPStatus(rawValue: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(rawValue: 431)
    public static let internalServerError = HTTPStatus(rawValue: 500)
    public static let serviceUnavailable = HTTPStatus(rawValue: 503)
    public static let insufficientStorage = HTTPStatus(rawValue: 507)

    /// The standard reason phrase (RFC 9110), or "Unknown" for codes we never send.
    public var reasonPhrase: String {
        switch rawValue {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 507: "Insufficient Storage"
        default: "Unknown"
        }
    }
}
