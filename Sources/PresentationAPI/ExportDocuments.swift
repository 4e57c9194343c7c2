import MicroHTTP
import Presentation
import Synchronization

/// The export documents being sent, by session and revision, so that every export of one
/// revision sends the same bytes rather than a copy each.
///
/// An export is a copy of the whole session (up to `--max-session-bytes`), held until its client
/// has read it all: a hundred clients that asked and never read held a hundred copies. A
/// revision names exactly one document, so its bytes can be shared. Held weakly: a document is
/// kept only while some response is still sending it, so an idle session costs nothing here
/// and a finished export frees its bytes at once, as before.
final class ExportDocuments: Sendable {
    private struct Entry {
        let revision: Int
        weak var document: SharedBytes?
    }

    private struct State {
        var entries: [SessionID: Entry] = [:]
        /// The count at which entries whose document is gone are dropped; doubles with the
        /// live ones, so that dropping them costs O(1) an export, amortised.
        var sweepAt = State.minimumSweep
        static let minimumSweep = 64
    }

    private let state = Mutex(State())

    /// The document of `session` at its revision: the one being sent, if any, else `write`'s.
    func document(for session: Session, write: (Session) -> SharedBytes) -> SharedBytes {
        let id = session.id
        let revision = session.revision
        if let kept = state.withLock({ state -> SharedBytes? in
            guard let entry = state.entries[id], entry.revision == revision else { return nil }
            return entry.document
        }) {
            return kept
        }
        // Written outside the lock: a large session takes milliseconds, and other sessions'
        // exports need not wait for it. Two exports of one revision at once may both write it.
        let document = write(session)
        state.withLock { state in
            if let entry = state.entries[id], entry.revision > revision { return }
            state.entries[id] = Entry(revision: revision, document: document)
            if state.entries.count >= state.sweepAt {
                state.entries = state.entries.filter { $0.value.document != nil }
                state.sweepAt = max(State.minimumSweep, state.entries.count * 2)
            }
        }
        return document
    }

    /// The sessions with an entry, live or not: for tests of the sweep.
    var entryCount: Int { state.withLock { $0.entries.count } }
}
