import MicroHTTP
import Testing

/// RFC 9110 13.1.2: an origin server MUST evaluate If-None-Match before performing any method,
/// and for one other than GET or HEAD whose condition is false (`*` while the resource exists,
/// or a list naming its current tag) MUST NOT perform it, answering 412. A DELETE of a session
/// is such a method on a resource that has tags; a client sends `If-None-Match: *` to act only
/// on what is not there, and a revision to act only if the session has moved past it.
@Suite("DELETE with If-None-Match")
struct DeleteNoneMatchTests {
    let harness = APIHarness()

    @Test("If-None-Match: * or the current revision is 412 and deletes nothing", arguments: ["*", "\"1\"", "W/\"1\"", "\"7\", \"1\""])
    func falseCondition(header: String) throws {
        let (id, token) = try harness.createSession()
        let refused = harness.send(.delete, "/v1/sessions/\(id)", token: token, headers: [("If-None-Match", header)])
        #expect(refused.status == .preconditionFailed, "\(header)")
        #expect(try refused.problemCode() == "revision_mismatch")
        #expect(refused.headers["ETag"] == "\"1\"")
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .ok, "\(header) deleted the session")
    }

    @Test("If-None-Match naming other revisions deletes; one that is no tag is 400 and deletes nothing")
    func trueCondition() throws {
        let (id, token) = try harness.createSession()
        let unreadable = harness.send(.delete, "/v1/sessions/\(id)", token: token, headers: [("If-None-Match", "\"1")])
        #expect(try unreadable.problemCode() == "invalid_header")
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .ok)
        let deleted = harness.send(.delete, "/v1/sessions/\(id)", token: token, headers: [("If-None-Match", "\"2\", \"3\"")])
        #expect(deleted.status == .noContent)
        #expect(harness.send(.get, "/v1/sessions/\(id)", token: token).status == .notFound)
    }

    @Test("If-Match is judged first (RFC 9110 13.2.2); both true deletes")
    func withIfMatch() throws {
        let (id, token) = try harness.createSession()
        let stale = harness.send(
            .delete, "/v1/sessions/\(id)", token: token, headers: [("If-Match", "\"5\""), ("If-None-Match", "\"6\"")])
        #expect(stale.status == .preconditionFailed)
        let both = harness.send(
            .delete, "/v1/sessions/\(id)", token: token, headers: [("If-Match", "\"1\""), ("If-None-Match", "\"6\"")])
        #expect(both.status == .noContent)
    }
}
