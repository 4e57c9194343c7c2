import MicroHTTP
import Presentation
import Synchronization

/// One Server-Sent Events client of a session: sends each revision's events once, in order.
///
/// A watch only says "something changed"; the subscriber then reads the events after the
/// last revision it sent, under its own lock, so concurrent notifications can neither
/// reorder nor duplicate messages.
final class EventSubscriber: Sendable {
    private let id: SessionID
    private let store: any SessionStore
    let stream: HTTPStream
    private let lastSent: Mutex<Int>
    /// The token the stream was opened with: once the session's token is replaced, the stream ends.
    private let openedWith: SessionTokenDigest
    /// Shared by every subscriber, so that a revision's events are written once, not once each.
    private let frames: EventFrameCache
    /// Where the session's JSON is kept, for a stream that includes the session after each
    /// revision's events (`?include=session`); nil for one that does not.
    private let sessionJSON: SessionJSONCache?

    init(
        id: SessionID, store: any SessionStore, stream: HTTPStream, after revision: Int, openedWith: SessionTokenDigest,
        frames: EventFrameCache, sessionJSON: SessionJSONCache?
    ) {
        self.id = id
        self.frames = frames
        self.sessionJSON = sessionJSON
        self.openedWith = openedWith
        self.store = store
        self.stream = stream
        lastSent = Mutex(revision)
    }

    func handle(_ change: SessionChange) {
        switch change {
        case .revised: pump()
        case .deleted:
            lastSent.withLock { last in
                stream.send(EventStreamFrame.named("deleted", revision: last))
                stream.finish()
            }
        }
    }

    /// Sends whatever happened since the last message.
    func pump() {
        lastSent.withLock { last in
            guard let session = store.session(id) else {
                stream.send(EventStreamFrame.named("deleted", revision: last))
                stream.finish()
                return
            }
            guard session.tokenDigest == openedWith else {
                stream.send(EventStreamFrame.named("revoked", revision: last))
                stream.finish()
                return
            }
            guard session.revision > last else { return }
            do {
                let after = last
                stream.send(
                    try frames.messages(for: id, after: after, through: session.revision) {
                        EventStreamFrame.messages(for: try session.events(after: after))
                    })
            } catch {
                // Fell behind the kept history: tell the client to refetch the tree (which a
                // stream that includes it gets next anyway).
                stream.send(EventStreamFrame.reset(revision: session.revision))
            }
            if let message = sessionMessage(session) { stream.send(message) }
            last = session.revision
        }
    }

    /// The message holding `session` as it stands, when this stream includes it: written once
    /// for all its subscribers, from the JSON reads and changes keep (copied out at once, since
    /// the next change may edit the kept bytes in place once no one holds them).
    func sessionMessage(_ session: Session) -> [UInt8]? {
        guard let sessionJSON else { return nil }
        return frames.sessionMessage(for: id, at: session.revision) {
            EventStreamFrame.session(sessionJSON.json(for: session).bytes, revision: session.revision)
        }
    }
}
