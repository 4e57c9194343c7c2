import MicroHTTP
import Presentation

/// The export documents being sent, by session and revision (`SharedRuns`), so that every
/// export of one revision sends the same bytes rather than a copy each: a hundred clients that
/// asked for a large session's export and never read held a hundred copies.
final class ExportDocuments: Sendable {
    private struct Key: Hashable {
        let session: SessionID
        let revision: Int
    }

    private let documents = SharedRuns<Key>()

    /// The document of `session` at its revision: the one being sent, if any, else `write`'s.
    func document(for session: Session, write: (Session) -> SharedBytes) -> SharedBytes {
        documents.run(for: Key(session: session.id, revision: session.revision)) { write(session) }
    }

    /// The revisions with an entry, live or not: for tests of the sweep.
    var entryCount: Int { documents.entryCount }
}
