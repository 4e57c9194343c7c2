/// Where operations act: the last screen of the topmost stack, and what holds or covers it.
public struct Top: Hashable, Sendable {
    public var stack: StackID
    public var screen: ScreenID
    /// The presentation holding `stack`; nil for the root stack.
    public var presentation: PresentationID?
    /// An alert presented from `screen`, which blocks everything but dismissing it.
    public var alert: PresentationID?

    public init(stack: StackID, screen: ScreenID, presentation: PresentationID?, alert: PresentationID?) {
        self.stack = stack
        self.screen = screen
        self.presentation = presentation
        self.alert = alert
    }
}
