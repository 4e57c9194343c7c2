import MicroHTTP
import Presentation
@testable import PresentationAPI
import Testing

/// A keyed change's reply is the session's whole tree as the change left it, kept with the
/// session: `Limits.replyBytesKept` bounds what a session's replies hold, as `repliesKept`
/// bounds their count.
@Suite("Replies of keyed changes, bounded in bytes")
struct ReplyBytesTests {
    @Test("A large session's retries replay its newest changes; an older key's retry is a new change")
    func largeSessionKeepsItsNewest() throws {
        let harness = APIHarness(limits: Limits(replyBytesKept: 20_000))
        let pad = String(repeating: "p", count: 6_000)
        let created = harness.send(.post, "/v1/sessions", json: #"{"root": {"screen": "inbox", "params": {"pad": "\#(pad)"}}}"#)
        let id = try #require(try created.jsonObject()["id"] as? String)
        let token = try #require(try created.jsonObject()["token"] as? String)
        func push(_ key: String) throws -> (revision: Int, replayed: Bool) {
            let answer = harness.send(
                .post, "/v1/sessions/\(id)/set-state", json: #"{"state": "\#(key)"}"#, token: token,
                headers: [("Idempotency-Key", key)])
            #expect(answer.status == .ok, "\(String(decoding: answer.bodyBytes, as: UTF8.self).prefix(300))")
            return (try #require(try answer.jsonObject()["revision"] as? Int), answer.headers["Idempotent-Replayed"] == "true")
        }
        let first = try (0..<6).map { try push("k\($0)") }
        #expect(first.map(\.replayed) == Array(repeating: false, count: 6))
        // Each reply holds the 6 KB tree: three fit in 20,000 bytes, so k3..k5 replay.
        for index in 3..<6 {
            let retry = try push("k\(index)")
            #expect(retry.replayed && retry.revision == first[index].revision, "k\(index) is kept")
        }
        let forgotten = try push("k0")
        #expect(!forgotten.replayed && forgotten.revision == first[5].revision + 1, "k0 went with the oldest bytes")
    }
}
