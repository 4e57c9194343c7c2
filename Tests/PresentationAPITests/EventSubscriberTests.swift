import Foundation
@testable import MicroHTTP
import Presentation
@testable import PresentationAPI
import Testing

/// What one Server-Sent Events subscriber sends when it is woken.
@Suite("Event stream subscribers")
struct EventSubscriberTests {
    /// A subscriber is woken after a change, and reads the events after the last revision it
    /// sent. Woken late (several changes landed before the first notice reached it), it may
    /// find those events trimmed: it must say so with a `reset`, or its client goes on from a
    /// revision it never saw, missing what happened in between without knowing.
    @Test("A subscriber that fell behind the kept history sends a reset at the current revision, then goes on")
    func resetWhenBehind() throws {
        let harness = APIHarness(limits: Limits(eventsKept: 1))
        let (rawID, token) = try harness.createSession()
        let id = try #require(SessionID(rawValue: rawID))
        let stream = HTTPStream()
        // Opened at revision 1, and not woken while the next three changes land.
        let subscriber = EventSubscriber(
            id: id, store: harness.store, stream: stream, after: 1, openedWith: SessionTokenDigest(hashing: token),
            frames: EventFrameCache(), sessionJSON: nil)
        let tap = StreamTap(stream: stream, includesSession: false, through: 1)
        for screen in ["a", "b", "c"] {
            let pushed = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "\#(screen)"}"#, token: token)
            #expect(pushed.status == .ok)
        }
        subscriber.pump()
        #expect(Self.text(tap.drain()) == Self.text(EventStreamFrame.reset(revision: 4)))

        // Caught up: the next change's events go out as usual.
        let popped = harness.send(.post, "/v1/sessions/\(rawID)/pop", json: "{}", token: token)
        #expect(popped.status == .ok)
        subscriber.pump()
        let session = try #require(harness.store.session(id))
        #expect(Self.text(tap.drain()) == Self.text(EventStreamFrame.messages(for: try session.events(after: 4))))
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
