public import JSON

/// One change to a session's tree, as a value: loggable, testable, and batchable in a `Step`.
///
/// Foundation also declares an `Operation` class; a file importing both Foundation and
/// Presentation names this one after `import enum Presentation.Operation`.
public enum Operation: Hashable, Sendable {
    case push(ScreenSpec)
    /// A non-nil result goes to the screen on top afterwards.
    case pop(result: JSONValue?)
    case popToRoot
    case popTo(ScreenID)
    case replace(ScreenSpec)
    case present(PresentationRequest)
    /// Dismisses the named presentation and all above it, or the topmost one when nil.
    case dismiss(presentation: PresentationID?, result: JSONValue?)
    /// Hands `result` from the named presentation (the topmost when nil) to the screen that
    /// presented it, and leaves it presented: one value of a result that is a stream.
    case emit(presentation: PresentationID?, result: JSONValue)
    case setRoot(ScreenSpec)
    /// Shows `state` on the named screen (the top screen when nil), anywhere in the tree: the
    /// screen keeps its place and id. `transition` is a hint for clients, carried by the event.
    case setState(screen: ScreenID?, state: ScreenState, transition: StateTransition)
}
