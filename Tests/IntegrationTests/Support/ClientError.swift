/// Why the test client gave up on a connection; every wait ends in one of these rather than a hang.
enum ClientError: Error, CustomStringConvertible {
    case cannotConnect(errno: Int32)
    case sendFailed(errno: Int32)
    case receiveFailed(errno: Int32)
    case timedOut(waitingFor: String)
    case closedByServer(waitingFor: String)
    case malformedResponse(String)
    case notJSONObject(String)
    case unexpectedStatus(Int, body: String)

    var description: String {
        switch self {
        case .cannotConnect(let code): "connect failed (errno \(code))"
        case .sendFailed(let code): "send failed (errno \(code))"
        case .receiveFailed(let code): "recv failed (errno \(code))"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .closedByServer(let what): "the server closed the connection while we waited for \(what)"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .notJSONObject(let text): "the body is not a JSON object: \(text.prefix(300))"
        case .unexpectedStatus(let status, let body): "unexpected status \(status): \(body.prefix(300))"
        }
    }
}
