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
}
