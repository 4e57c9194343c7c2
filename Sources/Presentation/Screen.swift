public import JSON

/// One screen in a stack, as opened from a `ScreenSpec`.
public struct Screen: Hashable, Sendable {
    public let id: ScreenID
    public let name: String
    public let title: String?
    /// The params as JSON text, encoded once when the screen was asked for: answers copy it.
    public let paramsText: JSONText
    /// The params as a value (decoded from `paramsText`).
    public var params: JSONValue { paramsText.value }
    /// The last result handed to this screen, by a screen popped off it or a presentation it made.
    public internal(set) var result: DeliveredResult? {
        get { delivered?.value }
        set { delivered = newValue.map(Box.init) }
    }

    /// Boxed: a `DeliveredResult` is 56 bytes that most screens never use, and every stack
    /// path holds its screens inline (docs/performance.md, memory per session).
    private var delivered: Box<DeliveredResult>?

    init(id: ScreenID, spec: ScreenSpec) {
        self.id = id
        self.name = spec.name
        self.title = spec.title
        self.paramsText = spec.paramsText
        self.delivered = nil
    }
}
