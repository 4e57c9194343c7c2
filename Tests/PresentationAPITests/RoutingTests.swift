import MicroHTTP
import Testing

@Suite("Routing and the shape of answers")
struct RoutingTests {
    let harness = APIHarness()

    @Test("Creating a session answers 201 with Location, ETag, token and the tree")
    func create() throws {
        let response = harness.send(
            .post, "/v1/sessions", json: #"{"root": {"screen": "inbox", "title": "Inbox", "params": {"folder": "all"}}}"#)
        #expect(response.status == .created)
        let body = try response.jsonObject()
        let id = try #require(body["id"] as? String)
        #expect(response.headers["Location"] == "/v1/sessions/\(id)")
        #expect(response.headers["ETag"] == "\"1\"")
        #expect(body["revision"] as? Int == 1)
        #expect((body["token"] as? String)?.count == 43)
        #expect(body["createdAt"] as? String == "2027-01-15T08:00:00.000Z")
        let root = try #require(body["root"] as? [String: Any])
        let path = try #require(root["path"] as? [[String: Any]])
        #expect(path.count == 1)
        #expect(path[0]["screen"] as? String == "inbox")
        #expect(path[0]["title"] as? String == "Inbox")
        #expect((path[0]["params"] as? [String: Any])?["folder"] as? String == "all")
        let top = try #require(body["top"] as? [String: Any])
        #expect(top["screen"] as? String == path[0]["id"] as? String)
        #expect(top["stack"] as? String == root["id"] as? String)
    }

    @Test("The token is not in the tree a GET returns")
    func tokenOnlyAtCreation() throws {
        let (id, token) = try harness.createSession()
        let response = harness.send(.get, "/v1/sessions/\(id)", token: token)
        #expect(response.status == .ok)
        #expect(try response.jsonObject()["token"] == nil)
    }

    @Test("An unknown path is a 404 problem")
    func unknownPath() throws {
        let response = harness.send(.get, "/v2/nothing")
        #expect(response.status == .notFound)
        #expect(try response.problemCode() == "not_found")
    }

    @Test("A method the route does not take is a 405 with Allow")
    func wrongMethod() throws {
        let response = harness.send(.put, "/v1/sessions/abc")
        #expect(response.status == .methodNotAllowed)
        #expect(try response.problemCode() == "method_not_allowed")
        #expect(response.headers["Allow"] == "GET, DELETE, HEAD, OPTIONS")
    }

    @Test("A literal path wins over a pattern: /v1/sessions/import is not the session \"import\"")
    func literalBeatsParameter() throws {
        // schemathesis found OPTIONS here advertising GET and DELETE, which belong to /v1/sessions/{id}.
        let get = harness.send(.get, "/v1/sessions/import", token: "A" + String(repeating: "b", count: 42))
        #expect(get.status == .methodNotAllowed)
        #expect(try get.problemCode() == "method_not_allowed")
        #expect(get.headers["Allow"] == "POST, OPTIONS")
        #expect(harness.send(.options, "/v1/sessions/import").headers["Allow"] == "POST, OPTIONS")
        #expect(harness.send(.options, "/v1/sessions/abc").headers["Allow"] == "GET, DELETE, HEAD, OPTIONS")
        let (id, token) = try harness.createSession()
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .ok)
    }

    @Test("OPTIONS lists the methods of a route")
    func options() {
        let response = harness.send(.options, "/v1/sessions/abc/push")
        #expect(response.status == .noContent)
        #expect(response.headers["Allow"] == "POST, OPTIONS")
    }

    @Test("Health and readiness need no token; readiness fails while stopping")
    func health() {
        #expect(harness.send(.get, "/healthz").status == .ok)
        #expect(harness.send(.get, "/readyz").status == .ok)
        harness.api.beginShutdown()
        #expect(harness.send(.get, "/readyz").status == .serviceUnavailable)
        #expect(harness.send(.get, "/healthz").status == .ok)
    }

    @Test("Present answers with the new presentation's id")
    func presentAnswersID() throws {
        let (id, token) = try harness.createSession()
        let response = harness.send(
            .post, "/v1/sessions/\(id)/present", json: #"{"style": "sheet", "screen": "compose"}"#, token: token)
        #expect(response.status == .ok)
        let body = try response.jsonObject()
        let presentation = try #require(body["presentation"] as? String)
        let top = try #require(body["top"] as? [String: Any])
        #expect(top["presentation"] as? String == presentation)
        #expect(response.headers["ETag"] == "\"2\"")
    }

    @Test("A retried request with the same Idempotency-Key is answered once")
    func idempotency() throws {
        let (id, token) = try harness.createSession()
        let headers = [("Idempotency-Key", "push-1")]
        let first = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token, headers: headers)
        let second = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token, headers: headers)
        #expect(first.status == .ok)
        #expect(second.bodyBytes == first.bodyBytes)
        #expect(second.headers["Idempotent-Replayed"] == "true")
        #expect(try harness.send(.get, "/v1/sessions/\(id)", token: token).jsonObject()["revision"] as? Int == 2)
        let other = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "b"}"#, token: token, headers: headers)
        #expect(try other.problemCode() == "idempotency_key_reused")
    }

    /// docs/api.md allows keys of 1 to 128 characters: a client generating the longest must
    /// have it honoured, not refused.
    @Test("An Idempotency-Key of 128 characters, the most, is kept and replayed; 129 is refused")
    func longestKey() throws {
        let (id, token) = try harness.createSession()
        let longest = [("Idempotency-Key", String(repeating: "k", count: 128))]
        let first = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token, headers: longest)
        #expect(first.status == .ok)
        let retry = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "a"}"#, token: token, headers: longest)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        let tooLong = [("Idempotency-Key", String(repeating: "k", count: 129))]
        let refused = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "b"}"#, token: token, headers: tooLong)
        #expect(try refused.problemCode() == "invalid_header")
    }
}
