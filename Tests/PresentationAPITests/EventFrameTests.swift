@testable import PresentationAPI
import Testing

@Suite("Event stream messages")
struct EventFrameTests {
    /// The fields of one Server-Sent Events message, by name, as a client reads them.
    private static func fields(of frame: [UInt8]) -> [String: String] {
        let text = String(decoding: frame, as: UTF8.self)
        #expect(text.hasSuffix("\n\n"), "a message ends with a blank line")
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        return fields
    }

    @Test("A reset carries its revision as the message id, so a reconnection resumes after it")
    func resetHasAnID() {
        let fields = Self.fields(of: EventStreamFrame.reset(revision: 7))
        #expect(fields["event"] == "reset")
        #expect(fields["id"] == "7", "EventSource reconnects with Last-Event-ID: 7, past the skipped events")
        #expect(fields["data"] == #"{"revision":7}"#)
    }

    @Test("Messages that end the stream carry no id: the stream does not resume")
    func endingMessagesHaveNoID() {
        for name in ["deleted", "revoked"] {
            let fields = Self.fields(of: EventStreamFrame.named(name, revision: 3))
            #expect(fields["event"] == name)
            #expect(fields["id"] == nil)
        }
    }
}
