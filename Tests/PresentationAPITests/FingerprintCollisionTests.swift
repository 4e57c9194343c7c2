import MicroHTTP
import Presentation
import Testing

/// An `Idempotency-Key` matches a retry by a digest of its request. Two requests whose
/// digests are equal are one request to the server: the second is answered with the first's
/// reply and never applied. So the digest must be one no client can collide, as 64-bit FNV-1a
/// (arithmetic, not a cryptographic hash) could be, by anyone, in minutes.
@Suite("Idempotency fingerprints")
struct FingerprintCollisionTests {
    /// Two screen names found with Pollard's rho, in 9 minutes on one core: as the bodies
    /// `{"screen":"…"}` of a push, the FNV-1a of `push`, a 0 and the body is 0xbab3abf2c8b846e3
    /// for both, and the bodies are of one length.
    static let colliding = ("tHh-smH6HmH", "cMCXuwkeq2B")

    @Test("Another request under a key is refused even when its FNV-1a equals the first's")
    func collidingBodyIsAnotherRequest() throws {
        let harness = APIHarness()
        let (id, token) = try harness.createSession()
        let key = [("Idempotency-Key", "tap-1")]
        let first = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen":"\#(Self.colliding.0)"}"#, token: token, headers: key)
        #expect(first.status == .ok)
        let other = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen":"\#(Self.colliding.1)"}"#, token: token, headers: key)
        #expect(other.status == .unprocessableContent, "answered \(other.status) \(other.headers)")
        #expect(try other.problemCode() == "idempotency_key_reused")
        // The first request alone was applied, and its retry is still its replay.
        let retry = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen":"\#(Self.colliding.0)"}"#, token: token, headers: key)
        #expect(retry.headers["Idempotent-Replayed"] == "true" && retry.bodyBytes == first.bodyBytes)
        #expect(try harness.send(.get, "/v1/sessions/\(id)", token: token).jsonObject()["revision"] as? Int == 2)
    }

    /// Durable sessions keep their replies across the upgrade that brought SHA-256, and the
    /// retry comes after that restart: a reply stored with the FNV-1a of the canonical JSON
    /// (what servers before kept) still answers it, and still refuses another request.
    @Test("A reply stored with the FNV-1a of its JSON, before SHA-256, still answers its retry")
    func replyStoredBeforeSHA256() throws {
        func fnv(route: String, body: String) -> [UInt8] {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(route.utf8) + [0] + Array(body.utf8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let length = UInt64(body.utf8.count)
            return withUnsafeBytes(of: hash.bigEndian) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) }
        }
        let harness = APIHarness()
        let (id, token) = try harness.createSession()
        let key = [("Idempotency-Key", "tap-2")]
        let first = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"screen": "detail", "params": {"b": 2, "a": 1}}"#, token: token,
            headers: key)
        #expect(first.status == .ok)
        try harness.store.update(try #require(SessionID(rawValue: id))) { session in
            session.replies = ReplyLog(
                restoring: session.replies.recorded.map { key, reply in
                    var old = reply
                    old.fingerprint = fnv(route: "push", body: #"{"params":{"a":1,"b":2},"screen":"detail"}"#)
                    return (key, old)
                })
        }
        let retry = harness.send(
            .post, "/v1/sessions/\(id)/push", json: #"{"params": {"a": 1, "b": 2}, "screen": "detail"}"#, token: token,
            headers: key)
        #expect(retry.headers["Idempotent-Replayed"] == "true" && retry.bodyBytes == first.bodyBytes)
        let other = harness.send(.post, "/v1/sessions/\(id)/push", json: #"{"screen": "other"}"#, token: token, headers: key)
        #expect(try other.problemCode() == "idempotency_key_reused")
    }
}
