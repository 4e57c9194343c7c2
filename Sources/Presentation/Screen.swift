/// One screen in a stack, as opened from a `ScreenSpec`.
public struct Screen: Hashable, Sendable {
    public let id: ScreenID
    public let name: String
    public let title: String?
    public let params: JSONValue
    /// The last result handed to this screen, by a screen popped off it or a presentation it made.
    public internal(set) var result: DeliveredResult?

    init(id: ScreenID, spec: ScreenSpec) {
        self.id = id
        self.name = spec.name
        self.title = spec.title
        self.params = spec.params
        self.result = nil
    }
}
