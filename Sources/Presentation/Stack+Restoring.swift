/// Public ways to build tree values from stored or imported data; only a session's operations make them otherwise.
///
/// Each checks what it alone can; `Session(id:tokenDigest:restoring:limits:)` checks how the parts fit together.
extension Stack {
    /// A stack read back from storage or an import; refused when the path is empty.
    public init(restoring id: StackID, path: [Screen], presentation: Presentation?) throws(PresentationError) {
        guard !path.isEmpty else { throw .invalidSnapshot("stack \(id) has no screens") }
        self.id = id
        self.path = path
        self.presentation = presentation
    }
}

extension Screen {
    /// A screen read back from storage or an import, with the last result handed to it and
    /// the state it shows.
    public init(restoring id: ScreenID, spec: ScreenSpec, result: DeliveredResult?, state: ScreenState? = nil) {
        self.init(id: id, spec: spec)
        self.result = result
        self.state = state
    }
}

extension Presentation {
    /// A presentation read back from storage or an import.
    public init(restoring id: PresentationID, style: PresentationStyle, presentedBy: ScreenID, content: PresentationContent) {
        self.init(id: id, style: style, presentedBy: presentedBy, content: content)
    }
}
