public import JSON

/// What an event reports, with the ids a client needs to follow along without refetching.
public enum EventKind: Hashable, Sendable {
    case pushed(screen: ScreenID, stack: StackID)
    /// The screens removed, in the order they stood in the stack (bottom first).
    case popped(screens: [ScreenID], stack: StackID)
    case replaced(old: ScreenID, new: ScreenID, stack: StackID)
    /// `stack` is the new presented stack, nil for an alert.
    case presented(PresentationID, style: PresentationStyle, by: ScreenID, stack: StackID?)
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
