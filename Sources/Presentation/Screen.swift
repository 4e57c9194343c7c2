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
        get { extras?.value.result }
        set { setExtras(Extras(result: newValue, state: state)) }
    }
    /// The state it shows (`Operation.setState`), nil until one is set.
    public internal(set) var state: ScreenState? {
        get { extras?.value.state }
        set { setExtras(Extras(result: result, state: newValue)) }
    }

    /// What most screens never get, together behind one reference: inline, a result and a
    /// state are 56 and 32 bytes, and every stack path holds its screens inline
    /// (docs/performance.md, memory per session). One box, not one each: a screen costs the
    /// same 8 bytes for both as it did for the result alone.
    private struct Extras: Hashable, Sendable {
        var result: DeliveredResult?
        var state: ScreenState?
    }

    private var extras: Box<Extras>?

    init(id: ScreenID, spec: ScreenSpec) {
        self.id = id
        self.name = spec.name
        self.title = spec.title
        self.paramsText = spec.paramsText
        self.extras = nil
    }

    /// What its state and result weigh (`Limits.maxSessionBytes`), read where they are: through
    /// `state` and `result` each came out of the box as a copy, for every screen of every push
    /// (callgrind: 83 instructions a push/pop more).
    var extrasWeight: Int {
        guard let extras else { return 0 }
        return (extras.value.state?.weight ?? 0) + (extras.value.result?.valueBytes ?? 0)
    }

    private mutating func setExtras(_ new: Extras) {
        extras = new.result == nil && new.state == nil ? nil : Box(new)
    }
}
