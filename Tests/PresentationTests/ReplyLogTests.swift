import Presentation
import Testing

@Suite("Reply log")
struct ReplyLogTests {
    static func reply(_ status: Int) -> RecordedReply {
        RecordedReply(fingerprint: [1, 2], status: status, body: Array("{}".utf8), revision: status)
    }

    @Test("A recorded reply is found under its key")
    func recordAndFind() {
        var log = ReplyLog()
        #expect(log.reply(for: "k") == nil)
        log.record(Self.reply(200), for: "k", keeping: 32)
        #expect(log.reply(for: "k") == Self.reply(200))
        #expect(log.reply(for: "other") == nil)
    }

    @Test("The oldest key is evicted past the limit")
    func eviction() {
        var log = ReplyLog()
        for index in 0..<5 {
            log.record(Self.reply(index), for: "key\(index)", keeping: 3)
        }
        #expect(log.count == 3)
        #expect(log.reply(for: "key0") == nil && log.reply(for: "key1") == nil)
        #expect(log.reply(for: "key4") == Self.reply(4))
    }

    @Test("Recording a key again replaces its reply and makes it the newest")
    func rerecord() {
        var log = ReplyLog()
        log.record(Self.reply(1), for: "a", keeping: 2)
        log.record(Self.reply(2), for: "b", keeping: 2)
        log.record(Self.reply(3), for: "a", keeping: 2)
        log.record(Self.reply(4), for: "c", keeping: 2)
        #expect(log.reply(for: "a") == Self.reply(3))
        #expect(log.reply(for: "b") == nil)
        #expect(log.count == 2)
    }

    @Test("Replies travel with the session value")
    func inSession() {
        var session = Fixture.session()
        session.replies.record(Self.reply(201), for: "key", keeping: Limits.default.repliesKept)
        let copy = session
        #expect(copy.replies.reply(for: "key")?.status == 201)
        #expect(copy.revision == 1)
    }

    /// A reply is the session's whole tree: 32 of a 16 MB session held 512 MB more.
    @Test("Past the byte budget the oldest replies go, whatever their count; the newest stays even alone")
    func byteBudget() {
        func reply(_ size: Int, _ revision: Int) -> RecordedReply {
            RecordedReply(fingerprint: [1], status: 200, body: [UInt8](repeating: 0x20, count: size), revision: revision)
        }
        var log = ReplyLog()
        // Each entry holds its key (2 bytes), its body and its fingerprint (1 byte).
        for index in 0..<4 {
            log.record(reply(997, index), for: "k\(index)", keeping: 32, bytes: 3_000)
        }
        #expect(log.count == 3, "three entries of 1,000 bytes fit in 3,000")
        #expect(log.reply(for: "k0") == nil && log.reply(for: "k1")?.revision == 1 && log.reply(for: "k3")?.revision == 3)
        log.record(reply(10_000, 9), for: "k9", keeping: 32, bytes: 3_000)
        #expect(log.count == 1, "one reply past the budget pushes out all older ones")
        #expect(log.reply(for: "k9")?.revision == 9, "and is kept itself, or the retry of a change just made would apply it again")
        log.record(reply(97, 10), for: "kA", keeping: 32, bytes: 3_000)
        #expect(log.count == 1 && log.reply(for: "kA") != nil)
    }
}
