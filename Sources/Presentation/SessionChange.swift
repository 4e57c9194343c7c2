/// What a watcher is told: the session has a new revision, or is gone.
///
/// Watchers are called outside the session's lock, so two close changes may be told out of order;
/// read the session to learn its latest state rather than trusting the order of calls.
public enum SessionChange: Hashable, Sendable {
    /// The revision, and the digest of the token the session had when it was made: a watcher
    /// opened with a token replaced since may still pass on what was made before that, which
    /// a read of the session, already under the new token, can no longer tell it.
    case revised(Int, token: SessionTokenDigest)
    case deleted
}
