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
        // Opened at revision 1, and not woken while the next three changes land.
        let (rawID, token, id, subscriber, tap) = try Self.subscribed(on: harness)
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

    /// Notices are told outside the session's lock, so the notice of a change made with the
    /// stream's token may come after the token was replaced. Reading the session alone, the
    /// subscriber found the new token and ended the stream without that change (a race seen
    /// 3 runs in 10 by an integration test); the notice now says which token the change was
    /// made with, and this replays that order exactly.
    @Test("A change made before the token was replaced still goes out, then revoked; nothing after it")
    func revokedAfterWhatTheTokenMade() throws {
        let harness = APIHarness()
        let (rawID, token, id, subscriber, tap) = try Self.subscribed(on: harness)
        let pushed = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "mine"}"#, token: token)
        #expect(pushed.status == .ok)
        let rotated = harness.send(.post, "/v1/sessions/\(rawID)/token", token: token)
        #expect(rotated.status == .ok)
        let fresh = try #require(try rotated.jsonObject()["token"] as? String)
        let after = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "theirs"}"#, token: fresh)
        #expect(after.status == .ok)

        // The push's notice, come late: revision 2 was made with the stream's token. Revision 3
        // may have been too until its notice says otherwise.
        subscriber.handle(.revised(2, token: SessionTokenDigest(hashing: token)))
        subscriber.handle(.revised(3, token: SessionTokenDigest(hashing: fresh)))
        let session = try #require(harness.store.session(id))
        let revision2 = try session.events(after: 1).filter { $0.revision == 2 }
        #expect(Self.text(tap.drain()) == Self.text(EventStreamFrame.messages(for: revision2) + EventStreamFrame.named("revoked", revision: 2)))
        #expect(!tap.stream.send(Array("more".utf8)), "the stream is finished")
    }

    /// Two changes of the old token (revisions 2 and 3) land before the rotation, and one of the
    /// new token's (4) after it, and their notices may reach the subscriber in any order, each
    /// told by its own thread outside the lock. Ended at the first notice that found the new
    /// token, the stream lost revision 3 (woken by 2) or both (woken by 4).
    @Test(
        "Every change the replaced token made goes out before revoked, in whatever order the notices come",
        arguments: [[2, 3, 4], [2, 4, 3], [3, 2, 4], [3, 4, 2], [4, 2, 3], [4, 3, 2]])
    func revokedAfterAllTheTokenMade(order: [Int]) throws {
        let harness = APIHarness()
        let (rawID, token, id, subscriber, tap) = try Self.subscribed(on: harness)
        let digest = SessionTokenDigest(hashing: token)
        for screen in ["a", "b"] {
            let pushed = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "\#(screen)"}"#, token: token)
            #expect(pushed.status == .ok)
        }
        let rotated = harness.send(.post, "/v1/sessions/\(rawID)/token", token: token)
        let fresh = try #require(try rotated.jsonObject()["token"] as? String)
        let after = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "theirs"}"#, token: fresh)
        #expect(after.status == .ok)

        for revision in order {
            subscriber.handle(.revised(revision, token: revision < 4 ? digest : SessionTokenDigest(hashing: fresh)))
        }
        let session = try #require(harness.store.session(id))
        let made = try session.events(after: 1).filter { $0.revision <= 3 }
        #expect(Self.text(tap.drain()) == Self.text(EventStreamFrame.messages(for: made) + EventStreamFrame.named("revoked", revision: 3)))
        #expect(!tap.stream.send(Array("more".utf8)), "the stream is finished")
    }

    @Test("A notice of a change made with another token ends the stream with nothing of it")
    func revokedByLaterChange() throws {
        let harness = APIHarness()
        let (rawID, token, _, subscriber, tap) = try Self.subscribed(on: harness)
        let rotated = harness.send(.post, "/v1/sessions/\(rawID)/token", token: token)
        let fresh = try #require(try rotated.jsonObject()["token"] as? String)
        let after = harness.send(.post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "theirs"}"#, token: fresh)
        #expect(after.status == .ok)
        subscriber.handle(.revised(2, token: SessionTokenDigest(hashing: fresh)))
        #expect(Self.text(tap.drain()) == Self.text(EventStreamFrame.named("revoked", revision: 1)))
    }

    /// A new session of `harness`, and a subscriber of it opened at revision 1 with its token, not yet woken.
    private static func subscribed(on harness: APIHarness) throws
        -> (rawID: String, token: String, id: SessionID, subscriber: EventSubscriber, tap: StreamTap)
    {
        let (rawID, token) = try harness.createSession()
        let id = try #require(SessionID(rawValue: rawID))
        let stream = HTTPStream()
        let subscriber = EventSubscriber(
            id: id, store: harness.store, stream: stream, after: 1, openedWith: SessionTokenDigest(hashing: token),
            frames: EventFrameCache(), sessionJSON: nil)
        return (rawID, token, id, subscriber, StreamTap(stream: stream, includesSession: false, through: 1))
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
