public import JSON

/// What became of a presentation, readable after it has closed (the remote form of awaiting a result).
public struct PresentationOutcome: Hashable, Sendable {
    public var id: PresentationID
    public var style: PresentationStyle
    public var presentedBy: ScreenID
    public var status: PresentationStatus
    /// Only for `dismissed`.
    public var result: JSONValue?

    public init(
        id: PresentationID,
        style: PresentationStyle,
        presentedBy: ScreenID,
        status: PresentationStatus,
        result: JSONValue? = nil
    ) {
        self.id = id
        self.style = style
        self.presentedBy = presentedBy
        self.status = status
        self.result = result
    }
}
