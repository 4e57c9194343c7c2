import Foundation
public import MicroHTTP
public import SessionChecks

/// What every answer of the API must look like, whatever it was asked.
///
/// A status in range and never 500 (an unexpected error is a bug); header fields that cannot
/// split a response (no CR, LF or NUL: some echo what the client sent); a client or server
/// error as `application/problem+json` whose body Foundation's parser reads as an object with
/// the same `status` and a non-empty `code`; a JSON body that is JSON; an event stream that
/// says so. Bodies are read with Foundation's `JSONSerialization`, not the API's own parser.
public enum ReplyCheck {
    public static func check(_ reply: HTTPReply) throws(Violation) {
        switch reply {
        case .later:
            return
        case .now(let response):
            try check(response)
        }
    }

    public static func check(_ response: HTTPResponse) throws(Violation) {
        let status = response.status.rawValue
        guard (100...599).contains(status) else { throw Violation("status \(status) is out of range") }
        for field in response.headers {
            guard !field.name.isEmpty, !field.name.utf8.contains(where: isBreak), !field.value.utf8.contains(where: isBreak)
            else { throw Violation("header field \(field) could split the response") }
        }
        let type = response.headers["Content-Type"] ?? ""
        guard let body = response.body.wholeBytes else {
            guard status == 200, type == "text/event-stream" else {
                throw Violation("a stream answered \(status) as \(type)")
            }
            return
        }
        if status == 500 {
            throw Violation("500: \(String(decoding: body, as: UTF8.self))")
        }
        if status >= 400 {
            guard type == "application/problem+json" else { throw Violation("a \(status) came as \(type)") }
            guard let problem = json(body) as? [String: Any] else {
                throw Violation("a \(status)'s problem is not a JSON object: \(String(decoding: body, as: UTF8.self))")
            }
            guard let code = problem["code"] as? String, !code.isEmpty, problem["status"] as? Int == status else {
                throw Violation("a \(status)'s problem lacks its code or status: \(problem)")
            }
        } else if type.contains("json"), !body.isEmpty, json(body) == nil {
            throw Violation("a \(status) body is not JSON: \(String(decoding: body, as: UTF8.self))")
        }
    }

    private static func isBreak(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0
    }

    private static func json(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }
}
