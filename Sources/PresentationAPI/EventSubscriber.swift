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
        case .revised(let revision, let token): pump(madeWithOurToken: token == openedWith ? revision : nil)
        case .deleted:
            lastSent.withLock { last in
                stream.send(EventStreamFrame.named("deleted", revision: last))
                stream.finish()
            }
        }
    }

    /// Sends whatever happened since the last message.
    ///
    /// `madeWithOurToken` is a revision the notice that woke it says was made while the session
    /// still had the stream's token. Told outside the session's lock, a notice may come after
    /// the token was replaced; what was made before that still goes out, then `revoked`. Read
    /// alone, the session (already under the new token) ended the stream one change early.
    func pump(madeWithOurToken: Int? = nil) {
        lastSent.withLock { last in
            guard let session = store.session(id) else {
                stream.send(EventStreamFrame.named("deleted", revision: last))
                stream.finish()
                return
            }
            guard session.tokenDigest == openedWith else {
                if let through = madeWithOurToken, through > last {
                    send(session, after: last, through: through)
                    last = through
                }
                stream.send(EventStreamFrame.named("revoked", revision: last))
                stream.finish()
                return
            }
            guard session.revision > last else { return }
            send(session, after: last, through: session.revision)
            last = session.revision
        }
    }

    /// Sends the events of `session` after `after` through `through`, and the session itself
    /// when the stream includes it and `through` is where it stands.
    private func send(_ session: Session, after: Int, through: Int) {
        do {
            stream.send(
                try frames.messages(for: id, after: after, through: through) {
                    var events = try session.events(after: after)
                    if through < session.revision { events.removeAll { $0.revision > through } }
                    return EventStreamFrame.messages(for: events)
                })
        } catch {
            // Fell behind the kept history: tell the client to refetch the tree (which a
            // stream that includes it gets next anyway).
            stream.send(EventStreamFrame.reset(revision: through))
        }
        if through == session.revision, let message = sessionMessage(session) { stream.send(message) }
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
