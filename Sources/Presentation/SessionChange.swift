/// What a watcher is told: the session has a new revision, or is gone.
///
/// Watchers are called outside the session's lock, so two close changes may be told out of order;
/// read the session to learn its latest state rather than trusting the order of calls.
public enum SessionChange: Hashable, Sendable {
    case revised(Int)
    case deleted
}
