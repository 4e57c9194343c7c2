public import JSON

/// What an event reports, with the ids a client needs to follow along without refetching.
public enum EventKind: Hashable, Sendable {
    case pushed(screen: ScreenID, stack: StackID)
    /// The screens removed, in the order they stood in the stack (bottom first).
    case popped(screens: [ScreenID], stack: StackID)
    case replaced(old: ScreenID, new: ScreenID, stack: StackID)
    /// `stack` is the new presented stack and `screen` the one screen it starts with, both nil
    /// for an alert. `screen` is nil too in events recorded before presented events named it:
    /// nothing else names that screen, so a client following the tree through its events
    /// could not tell it was there (a later `result`, `state-set` or `replaced` named a screen
    /// it had never seen).
    case presented(PresentationID, style: PresentationStyle, by: ScreenID, stack: StackID?, screen: ScreenID?)
    /// Closed with a result.
    case dismissed(PresentationID, by: ScreenID)
    /// Closed without a result.
    case cancelled(PresentationID, by: ScreenID)
    case result(to: ScreenID, from: ResultSource, value: JSONValue)
    case rootSet(screen: ScreenID, stack: StackID)
    case stateSet(screen: ScreenID, state: ScreenState, transition: StateTransition)

    /// The event's type as clients see it.
    public var name: String {
        switch self {
        case .pushed: "pushed"
        case .popped: "popped"
        case .replaced: "replaced"
        case .presented: "presented"
        case .dismissed: "dismissed"
        case .cancelled: "cancelled"
        case .result: "result"
        case .rootSet: "root-set"
        case .stateSet: "state-set"
        }
    }
}
