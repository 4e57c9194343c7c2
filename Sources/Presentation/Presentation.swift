/// Something presented over the top screen of a stack: a stack of its own, or an alert.
public struct Presentation: Hashable, Sendable {
    public let id: PresentationID
    public let style: PresentationStyle
    /// The screen it was presented from, which receives its result.
    public let presentedBy: ScreenID
    public internal(set) var content: PresentationContent
}
