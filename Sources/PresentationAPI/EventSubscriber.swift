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
    private let progress: Mutex<Progress>
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
        progress = Mutex(Progress(lastSent: revision))
    }

    /// How far the stream has gone, under its own lock.
    private struct Progress {
        var lastSent: Int
        /// The first revision a notice said was made with another token: every later one was
        /// too, since a replaced token never comes back.
        var firstNotOurs: Int?
    }

    func handle(_ change: SessionChange) {
        switch change {
        case .revised(let revision, let token): pump(notice: (revision, ours: token == openedWith))
        case .deleted:
            progress.withLock { progress in
                stream.send(EventStreamFrame.named("deleted", revision: progress.lastSent))
                stream.finish()
            }
        }
    }

    /// Sends whatever happened since the last message.
    ///
    /// `notice` is the revision that woke it and whether it was made while the session still had
    /// the stream's token. Told outside the session's lock, notices may come after the token was
    /// replaced, and in any order: what the stream's token made still goes out, then `revoked`,
    /// once the notices tell where its changes end (the first made with another token, or none
    /// made since). Read alone, the session (already under the new token) ended the stream
    /// without them; ended at the first such notice, without those whose notices came later.
    /// Every revision after the first read that found the stream's token is told to it, so
    /// that point always comes; the first read (no notice) that finds another ends it at once.
    /// `read`: the session as the caller has just read it, rather than a read of the store.
    /// False once the stream has ended (`deleted`, `revoked`).
    @discardableResult
    func pump(notice: (revision: Int, ours: Bool)? = nil, reading read: Session? = nil) -> Bool {
        progress.withLock { progress in
            let last = progress.lastSent
            guard let session = read ?? store.session(id) else {
                stream.send(EventStreamFrame.named("deleted", revision: last))
                stream.finish()
                return false
            }
            guard session.tokenDigest == openedWith else {
                if let notice {
                    if !notice.ours {
                        progress.firstNotOurs = min(progress.firstNotOurs ?? notice.revision, notice.revision)
                    } else if notice.revision > last {
                        send(session, after: last, through: notice.revision)
                        progress.lastSent = notice.revision
                    }
                    let last = progress.lastSent
                    guard last == session.revision || progress.firstNotOurs == last + 1 else { return true }
                }
                stream.send(EventStreamFrame.named("revoked", revision: progress.lastSent))
                stream.finish()
                return false
            }
            guard session.revision > last else { return true }
            send(session, after: last, through: session.revision)
            progress.lastSent = session.revision
            return true
        }
    }

    /// Sends the events of `session` after `after` through `through`, and the session itself
    /// when the stream includes it and `through` is where it stands.
    ///
    /// Both go as the arrays the frame cache keeps, which every subscriber of the session is
    /// handed: a stream holds a reference to them, not a copy. They go together, so that the
    /// reader is judged behind on what waited before them, not on the events just queued.
    private func send(_ session: Session, after: Int, through: Int) {
        let events: [UInt8]
        do {
            events = try frames.messages(for: id, after: after, through: through) {
                var events = try session.events(after: after)
                if through < session.revision { events.removeAll { $0.revision > through } }
                return EventStreamFrame.messages(for: events)
            }
        } catch {
            // Fell behind the kept history: tell the client to refetch the tree (which a
            // stream that includes it gets next anyway).
            events = EventStreamFrame.reset(revision: through)
        }
        let message = through == session.revision ? sessionMessage(session) : nil
        stream.send(together: [events, message ?? []])
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
