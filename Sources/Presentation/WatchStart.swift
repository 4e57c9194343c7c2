/// What `SessionStore.watch(_:ifAt:_:)` found: the watch registered; the session moved on since
/// the caller's look (as it is now, with no watch registered); or no session.
public enum WatchStart: Sendable {
    case watching(Watch)
    case moved(Session)
    case gone
}
