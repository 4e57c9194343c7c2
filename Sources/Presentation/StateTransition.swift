/// How a client should show a screen's change of state: a hint carried by the change's event,
/// not kept in the tree (a client that joins later has nothing to animate).
public enum StateTransition: String, CaseIterable, Hashable, Sendable {
    /// The client's usual animation for a change of state.
    case automatic
    case crossfade
    /// At once, as when restoring a screen or following a change made elsewhere long ago.
    case none
}
