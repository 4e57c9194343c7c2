import Testing

/// One row of the error table: what to set up, the request that must fail, and the problem it gets.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    /// An operation (route suffix and JSON body) applied first, which must succeed.
    struct Setup: Sendable {
        let operation: String
        let body: String
    }

    let name: String
    var setup: [Setup] = []
    var method = "POST"
    /// Appended to `/v1/sessions/{id}`; a leading `/` makes it an absolute path instead.
    let route: String
    var body: [UInt8]? = nil
    var contentType: String? = "application/json"
    var headers: [(String, String)] = []
    let status: Int
    let code: String
    var pointer: String? = nil
    var allow: [String]? = nil

    var testDescription: String { name }

    init(
        _ name: String,
        setup: [(String, String)] = [],
        method: String = "POST",
        route: String,
        body: String? = nil,
        bytes: [UInt8]? = nil,
        contentType: String? = "application/json",
        headers: [(String, String)] = [],
        status: Int,
        code: String,
        pointer: String? = nil,
        allow: [String]? = nil
    ) {
        self.name = name
        self.setup = setup.map { Setup(operation: $0.0, body: $0.1) }
        self.method = method
        self.route = route
        self.body = bytes ?? body.map { Array($0.utf8) }
        self.contentType = contentType
        self.headers = headers
        self.status = status
        self.code = code
        self.pointer = pointer
        self.allow = allow
    }
}
