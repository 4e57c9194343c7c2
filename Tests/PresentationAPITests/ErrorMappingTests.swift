import MicroHTTP
import Presentation
@testable import PresentationAPI
import Testing

@Suite("Errors become problem details")
struct ErrorMappingTests {
    let harness = APIHarness()

    @Test(
        "Bad bodies are refused with a clear code and change nothing",
        arguments: [
            ("push", #"{"screen": "a""#, 400, "malformed_json"),
            ("push", #"{"screen": "a", "screen": "b"}"#, 400, "malformed_json"),
            ("push", #"["screen"]"#, 422, "invalid_field"),
            ("push", #"{"title": "no name"}"#, 422, "missing_field"),
            ("push", #"{"screen": 7}"#, 422, "invalid_field"),
            ("push", #"{"screen": "a", "parmas": {}}"#, 422, "unknown_field"),
            ("push", #"{"screen": "a", "params": [1]}"#, 422, "invalid_field"),
            ("push", #"{"screen": ""}"#, 422, "invalid_screen"),
            ("present", #"{"screen": "a", "style": "drawer"}"#, 422, "invalid_field"),
            ("present", #"{"style": "alert"}"#, 422, "missing_field"),
            ("present", #"{"style": "alert", "alert": {"actions": []}}"#, 422, "invalid_alert"),
            ("pop", "{}", 409, "cannot_pop_root"),
            ("dismiss", "{}", 409, "nothing_presented"),
            ("pop-to", #"{"screen": "s999"}"#, 404, "screen_not_found"),
            ("batch", #"{"operations": []}"#, 422, "empty_batch"),
            ("batch", #"{"operations": [{"op": "fly"}]}"#, 422, "invalid_field"),
        ])
    func badBodies(route: String, body: String, status: Int, code: String) throws {
        let (id, token) = try harness.createSession()
        let before = harness.send(.get, "/v1/sessions/\(id)", token: token).bodyBytes
        let response = harness.send(.post, "/v1/sessions/\(id)/\(route)", json: body, token: token)
        #expect(response.status.rawValue == status)
        #expect(try response.problemCode() == code)
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).bodyBytes == before)
    }

    /// A right-to-left override quoted in a detail reversed the server's own words after it
    /// wherever the detail was shown; the `pointer` member, for programs, keeps what was sent.
    @Test("Bidirectional controls quoted in a detail are shown as code points; pointer keeps them")
    func bidiControlsInDetail() throws {
        let (id, token) = try harness.createSession()
        let name = "par\u{202E}ams\u{2066}x\u{200F}"
        let response = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen": "a", "\#(name)": 1}"#, token: token)
        #expect(try response.problemCode() == "unknown_field")
        let problem = try response.jsonObject()
        let detail = try #require(problem["detail"] as? String)
        #expect(detail == "/par<U+202E>ams<U+2066>x<U+200F> is not a field of this request")
        #expect(!detail.unicodeScalars.contains { $0.properties.isBidiControl })
        #expect(problem["pointer"] as? String == "/\(name)")
    }

    @Test("A body that is not JSON by its content type is a 415")
    func wrongContentType() throws {
        let (id, token) = try harness.createSession()
        let response = harness.send(
            .post, "/v1/sessions/\(id)/push", token: token,
            headers: [("Content-Type", "application/x-www-form-urlencoded")])
        // An empty body on push is refused before its type matters; send one.
        #expect(response.status == .badRequest)
        let typed = HTTPRequest(
            method: .post, path: "/v1/sessions/\(id)/push",
            headers: ["Content-Type": "text/plain", "Authorization": "Bearer \(token)"],
            body: Array(#"{"screen": "a"}"#.utf8))
        guard case .now(let refused) = harness.api.respond(to: typed) else {
            Issue.record("expected an answer")
            return
        }
        #expect(refused.status == .unsupportedMediaType)
        #expect(try refused.problemCode() == "unsupported_media_type")
    }

    @Test("A stale If-Match is a 412 naming the current revision")
    func staleRevision() throws {
        let (id, token) = try harness.createSession()
        let response = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token, headers: [("If-Match", "\"7\"")])
        #expect(response.status == .preconditionFailed)
        #expect(try response.problemCode() == "revision_mismatch")
        #expect(try response.jsonObject()["revision"] as? Int == 1)
    }

    @Test("No token, or another session's token, is a 401")
    func unauthorized() throws {
        let (id, _) = try harness.createSession()
        let (_, otherToken) = try harness.createSession()
        let none = harness.send(.get, "/v1/sessions/\(id)")
        #expect(none.status == .unauthorized)
        #expect(none.headers["WWW-Authenticate"] == "Bearer")
        #expect(try none.problemCode() == "unauthorized")
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: otherToken).status == .unauthorized)
        #expect(
            harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: otherToken).status
                == .unauthorized)
    }

    @Test(
        "Domain errors map to their status and code",
        arguments: [
            (PresentationError.sessionNotFound, 404, "session_not_found"),
            (.cannotPopRoot, 409, "cannot_pop_root"),
            (.topChanged(expected: ScreenID(rawValue: "s1")!, actual: ScreenID(rawValue: "s2")!), 409, "top_changed"),
            (.blockedByAlert(PresentationID(rawValue: "p3")!), 409, "blocked_by_alert"),
            (.unknownAlertAction("x"), 422, "unknown_action"),
            (.stackTooLong(limit: 64), 422, "stack_too_long"),
            (.tooManySessions(limit: 5), 503, "too_many_sessions"),
            (.storageLimitReached(limit: 1000), 503, "storage_limit_reached"),
            (.storageFull, 507, "storage_full"),
            (.writeRateLimited(bytesPerSecond: 65_536, retryAfter: 2), 429, "write_rate_limited"),
            (.storageFailed("I/O error"), 503, "storage_failed"),
            (.invalidSnapshot("ids used twice"), 422, "invalid_document"),
            (.historyExpired(oldest: 9), 410, "history_expired"),
            (.revisionMismatch(current: 4), 412, "revision_mismatch"),
            (.tokenReplaced, 401, "unauthorized"),
            (.batchStepFailed(index: 2, .cannotPopRoot), 409, "cannot_pop_root"),
        ])
    func domainErrors(error: PresentationError, status: Int, code: String) throws {
        let response = ProblemDetails(for: error).response
        #expect(response.status.rawValue == status)
        #expect(try response.problemCode() == code)
    }

    @Test("Too many sessions is a 503 with Retry-After and the limit")
    func tooManySessions() throws {
        var limits = Limits.default
        limits.maxSessions = 1
        let harness = APIHarness(limits: limits)
        _ = try harness.createSession()
        let response = harness.send(.post, "/v1/sessions", json: #"{"root": {"screen": "inbox"}}"#)
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers["Retry-After"] != nil)
        #expect(try response.problemCode() == "too_many_sessions")
        #expect(try response.jsonObject()["limit"] as? Int == 1)
    }

    @Test("An oversized body is refused with its limit")
    func bodyTooLarge() throws {
        let response = harness.api.response(for: .bodyTooLarge(limit: 1024), requestHeaders: HTTPHeaders())
        #expect(response.status == .contentTooLarge)
        #expect(try response.problemCode() == "body_too_large")
        #expect(try response.jsonObject()["limit"] as? Int == 1024)
    }
}
