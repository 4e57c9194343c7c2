import JSON
import MicroHTTP
import Presentation

/// An RFC 9457 problem: the one place where errors become HTTP statuses and stable codes.
struct ProblemDetails: Sendable {
    var status: HTTPStatus
    var code: String
    var detail: String
    /// Members beyond the standard ones that help a client act: `limit`, `pointer`, ...
    var extensions: [(String, JSONValue)] = []
    var headers = HTTPHeaders()

    init(status: HTTPStatus, code: String, detail: String, extensions: [(String, JSONValue)] = []) {
        self.status = status
        self.code = code
        self.detail = detail
        self.extensions = extensions
    }

    /// Maps any error thrown while answering; an unexpected one is a 500 that says so.
    init(for error: any Error) {
        switch error {
        case let error as PresentationError: self.init(for: error)
        case let error as APIError: self.init(for: error)
        default:
            self.init(status: .internalServerError, code: "internal_error", detail: "unexpected error: \(error)")
        }
    }

    init(for error: APIError) {
        switch error {
        case .routeNotFound(let path):
            self.init(status: .notFound, code: "not_found", detail: "no route for \(path)")
        case .methodNotAllowed(let allowed):
            // OPTIONS is answered on every route a method is (`PresentationAPI.methodNotAllowed`),
            // so Allow names it too (RFC 9110 10.2.1: the methods the resource supports), and
            // the detail says what Allow says.
            let methods = (allowed + [.options]).map(\.rawValue).joined(separator: ", ")
            self.init(status: .methodNotAllowed, code: "method_not_allowed", detail: "this route takes \(methods)")
            headers.set("Allow", methods)
        case .malformedJSON(let reason):
            self.init(status: .badRequest, code: "malformed_json", detail: "the body is not valid JSON: \(reason)")
        case .unsupportedMediaType(let type):
            self.init(
                status: .unsupportedMediaType, code: "unsupported_media_type",
                detail: "bodies must be application/json, not \(type)")
        case .invalidField(let pointer, let reason):
            self.init(
                status: .unprocessableContent, code: "invalid_field", detail: "\(pointer): \(reason)",
                extensions: [("pointer", .string(pointer))])
        case .missingField(let pointer):
            self.init(
                status: .unprocessableContent, code: "missing_field", detail: "\(pointer) is required",
                extensions: [("pointer", .string(pointer))])
        case .unknownField(let pointer):
            self.init(
                status: .unprocessableContent, code: "unknown_field", detail: "\(pointer) is not a field of this request",
                extensions: [("pointer", .string(pointer))])
        case .presentationIDTooLong:
            // The code of any id that names nothing: the route exists, so `not_found` would mislead.
            self.init(status: .notFound, code: "presentation_not_found", detail: "no presentation has an id that long")
        case .invalidQuery(let name, let reason):
            self.init(status: .badRequest, code: "invalid_query", detail: "query argument \(name): \(reason)")
        case .invalidHeader(let name, let reason):
            self.init(status: .badRequest, code: "invalid_header", detail: "header \(name): \(reason)")
        case .unauthorized:
            self.init(
                status: .unauthorized, code: "unauthorized",
                detail: "send this session's token as Authorization: Bearer <token>")
            headers.set("WWW-Authenticate", "Bearer")
        case .adminUnauthorized:
            self.init(
                status: .unauthorized, code: "unauthorized",
                detail: "this route needs the administrator's token as Authorization: Bearer <token>")
            headers.set("WWW-Authenticate", "Bearer")
        case .idempotencyKeyReused:
            self.init(
                status: .unprocessableContent, code: "idempotency_key_reused",
                detail: "this Idempotency-Key was used for a different request")
        case .fileChanged:
            self.init(
                status: .preconditionFailed, code: "precondition_failed",
                detail: "If-Match names none of this file's tags; its ETag is the current one")
        case .fileUnavailable:
            self.init(
                status: .serviceUnavailable, code: "file_unavailable",
                detail: "this file cannot be read now (the server is out of file descriptors or memory, or the read failed); retry")
            headers.set("Retry-After", "1")
        case .bodyTooLarge(let limit):
            self.init(
                status: .contentTooLarge, code: "body_too_large", detail: "request bodies are limited to \(limit) bytes",
                extensions: [("limit", .number(String(limit)))])
        case .bodyBufferFull(let limit):
            self.init(
                status: .serviceUnavailable, code: "body_buffer_full",
                detail: "the request bodies arriving at once hold the \(limit) bytes the server keeps for them; this one was not kept: retry",
                extensions: [("limit", .number(String(limit)))])
            headers.set("Retry-After", "1")
        case .headersTooLarge(let limit):
            self.init(
                status: .requestHeaderFieldsTooLarge, code: "headers_too_large",
                detail: "the request's headers take more than the \(limit) bytes a connection keeps for them (each field counts its bytes and 64 more)",
                extensions: [("limit", .number(String(limit)))])
        case .creationRateLimited(let perMinute, let retryAfter):
            self.init(
                status: .tooManyRequests, code: "rate_limited",
                detail: "this address may create \(perMinute) sessions a minute; retry in \(retryAfter) s",
                extensions: [("limit", .number(String(perMinute)))])
            headers.set("Retry-After", String(retryAfter))
        case .shuttingDown:
            self.init(status: .serviceUnavailable, code: "shutting_down", detail: "the server is stopping; retry")
            headers.set("Retry-After", "1")
        case .batchOperation(let index, let inner):
            self.init(for: inner)
            detail = "operation \(index): \(detail)"
            extensions.append(("operation", .number(String(index))))
        }
    }

    init(for error: PresentationError) {
        switch error {
        case .sessionNotFound:
            self.init(status: .notFound, code: "session_not_found", detail: "no such session (deleted or never created)")
        case .screenNotFound(let id):
            self.init(status: .notFound, code: "screen_not_found", detail: "no screen \(id) in this session")
        case .presentationNotFound(let id):
            self.init(status: .notFound, code: "presentation_not_found", detail: "no open presentation \(id)")
        case .outcomeNotKept(let id):
            // The same code as an unknown id: to a client both mean there is nothing to read.
            self.init(
                status: .notFound, code: "presentation_not_found",
                detail: "presentation \(id) is not open and no outcome of it is kept: never presented, or closed before the newest the session keeps")
        case .cannotPopRoot:
            self.init(status: .conflict, code: "cannot_pop_root", detail: "the top stack shows only its root screen")
        case .alreadyOnTop(let id):
            self.init(status: .conflict, code: "already_on_top", detail: "screen \(id) is already the top")
        case .screenNotInTopStack(let id):
            self.init(status: .conflict, code: "screen_not_in_top_stack", detail: "screen \(id) is not in the topmost stack")
        case .topChanged(let expected, let actual):
            self.init(
                status: .conflict, code: "top_changed", detail: "the top is \(actual), not \(expected)",
                extensions: [("top", .string(actual.rawValue))])
        case .nothingPresented:
            self.init(status: .conflict, code: "nothing_presented", detail: "no presentation is open")
        case .navigationDisabled(let stack):
            self.init(
                status: .conflict, code: "navigation_disabled",
                detail: "stack \(stack) was presented without navigation; present instead")
        case .blockedByAlert(let id):
            self.init(
                status: .conflict, code: "blocked_by_alert", detail: "alert \(id) must be answered first",
                extensions: [("presentation", .string(id.rawValue))])
        case .unknownAlertAction(let action):
            self.init(status: .unprocessableContent, code: "unknown_action", detail: "the alert has no action \"\(action)\"")
        case .invalidAlertResult(let reason):
            self.init(status: .unprocessableContent, code: "invalid_alert_result", detail: reason)
        case .invalidScreen(let reason):
            self.init(status: .unprocessableContent, code: "invalid_screen", detail: reason)
        case .invalidState(let reason):
            self.init(status: .unprocessableContent, code: "invalid_state", detail: reason)
        case .invalidAlert(let reason):
            self.init(status: .unprocessableContent, code: "invalid_alert", detail: reason)
        case .invalidPresentation(let reason):
            self.init(status: .unprocessableContent, code: "invalid_presentation", detail: reason)
        case .stackTooLong(let limit):
            self.init(limit: limit, code: "stack_too_long", detail: "a stack holds at most \(limit) screens")
        case .presentationsTooDeep(let limit):
            self.init(limit: limit, code: "presentations_too_deep", detail: "at most \(limit) presentations may be stacked")
        case .sessionTooLarge(let limit):
            self.init(
                limit: limit, code: "session_too_large",
                detail: "the session's screens, states and results would hold more than \(limit) bytes")
        case .batchTooLarge(let limit):
            self.init(limit: limit, code: "batch_too_large", detail: "a batch holds at most \(limit) operations")
        case .emptyBatch:
            self.init(status: .unprocessableContent, code: "empty_batch", detail: "a batch needs at least one operation")
        case .tooManySessions(let limit):
            self.init(serverLimit: limit, code: "too_many_sessions", detail: "the server holds its maximum of \(limit) sessions")
        case .storageLimitReached(let limit):
            self.init(
                serverLimit: limit, code: "storage_limit_reached",
                detail: "the server stores its maximum of \(limit) bytes; existing sessions keep working")
        case .memoryLimitReached(let limit):
            self.init(
                serverLimit: limit, code: "memory_limit_reached",
                detail: "the server holds its maximum of \(limit) bytes in memory; existing sessions keep working")
        case .writeRateLimited(let bytesPerSecond, let retryAfter):
            self.init(
                status: .tooManyRequests, code: "write_rate_limited",
                detail: "this session's changes may write \(bytesPerSecond) bytes a second to storage, and have written more of late; nothing was changed, retry in \(retryAfter) s",
                extensions: [("limit", .number(String(bytesPerSecond)))])
            headers.set("Retry-After", String(retryAfter))
        case .storageFull:
            self.init(
                status: .insufficientStorage, code: "storage_full",
                detail: "the server's disk is full; nothing was changed, retry later")
            headers.set("Retry-After", "60")
        case .storageFailed(let reason):
            self.init(
                status: .serviceUnavailable, code: "storage_failed",
                detail: "the change could not be written: \(reason)")
            headers.set("Retry-After", "5")
        case .invalidSnapshot(let reason):
            self.init(status: .unprocessableContent, code: "invalid_document", detail: reason)
        case .historyExpired(let oldest):
            self.init(
                status: .gone, code: "history_expired",
                detail: "events up to revision \(oldest) are no longer kept; refetch the session",
                extensions: [("oldest", .number(String(oldest)))])
        case .revisionAhead(let current):
            self.init(
                status: .badRequest, code: "revision_ahead", detail: "the session is only at revision \(current)",
                extensions: [("revision", .number(String(current)))])
        case .revisionMismatch(let current):
            self.init(
                status: .preconditionFailed, code: "revision_mismatch",
                detail: "the session is at revision \(current); refetch and retry",
                extensions: [("revision", .number(String(current)))])
            headers.set("ETag", ETag.value(for: current))
        case .tokenReplaced:
            // The same answer as any other token that is not the session's.
            self.init(for: APIError.unauthorized)
        case .batchStepFailed(let index, let inner):
            self.init(for: inner)
            detail = "operation \(index): \(detail)"
            extensions.append(("operation", .number(String(index))))
        }
    }

    private init(limit: Int, code: String, detail: String) {
        self.init(
            status: .unprocessableContent, code: code, detail: detail, extensions: [("limit", .number(String(limit)))])
    }

    /// A limit of the whole server that new sessions wait on (503): one comes free as
    /// sessions end, so the client is told to come back in a minute.
    private init(serverLimit limit: Int, code: String, detail: String) {
        self.init(limit: limit, code: code, detail: detail)
        status = .serviceUnavailable
        headers.set("Retry-After", "60")
    }

    /// `text` with each bidirectional control written as `<U+202E>`. A detail quotes what the
    /// client sent (a path, a field's name, an alert action), and a right-to-left override
    /// in it reversed the rest of the detail wherever it was shown, the server's own words
    /// too. Our words hold no such controls, so only the quoted text changes; members meant
    /// for programs (`pointer`) keep it exactly as sent.
    static func showingBidiControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: \.properties.isBidiControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isBidiControl {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown += "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// The `application/problem+json` response.
    var response: HTTPResponse {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("type")
        writer.writeString("urn:presentation-server:problem:\(code)")
        writer.key("title")
        writer.writeString(status.reasonPhrase)
        writer.key("status")
        writer.writeInt(status.rawValue)
        writer.key("detail")
        writer.writeString(Self.showingBidiControls(detail))
        writer.key("code")
        writer.writeString(code)
        for (name, value) in extensions {
            writer.key(escaping: name)
            writer.write(value)
        }
        writer.endObject()
        var headers = headers
        headers.set("Content-Type", "application/problem+json")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: status, headers: headers, bytes: writer.bytes)
    }
}
