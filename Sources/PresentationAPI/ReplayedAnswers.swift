import MicroHTTP
import Presentation

/// The recorded answers of keyed changes being sent, by session, key and revision
/// (`SharedRuns`), so that every retry of one change sends the same bytes rather than a copy
/// each.
///
/// A recorded answer is the whole session (so that each retry may prefer either form), kept in
/// the session as the domain's bytes. Answered with a copy each, fifty retries that never read
/// their answers held fifty copies of a 3.6 MB session, 173 MB. A session, key and revision
/// name one recorded answer: a key is answered once until it is forgotten, and used again
/// after that, it records another revision's answer.
final class ReplayedAnswers: Sendable {
    private struct Key: Hashable {
        let session: SessionID
        let key: String
        let revision: Int
    }

    private let answers = SharedRuns<Key>()

    /// `reply`'s body, recorded in `session` for `key`: the one being sent, if any, else a copy.
    func body(of reply: RecordedReply, for key: String, in session: SessionID) -> SharedBytes {
        answers.run(for: Key(session: session, key: key, revision: reply.revision)) {
            reply.body.withUnsafeBufferPointer { SharedBytes(copying: $0) }
        }
    }
}
