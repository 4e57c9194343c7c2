public import JSON

/// Which of its children a screen shows, after StateViewController: a container that stays
/// where it is in its stack (same id, same results) while what it shows changes by state,
/// such as `loading`, `content` and `failed`. Named like a screen, with params of its own.
public struct ScreenState: Hashable, Sendable {
    public let name: String
    /// Always a JSON object, as text: encoded once, copied as it is from then on.
    public let paramsText: JSONText
    /// The params as a value (decoded from `paramsText`).
    public var params: JSONValue { paramsText.value }

    public init(name: String, params: JSONValue = .emptyObject) throws(PresentationError) {
        try self.init(name: name, paramsText: JSONText(params))
    }

    public init(name: String, paramsText: JSONText) throws(PresentationError) {
        if let refusal = ScreenSpec.refusal(ofName: name, as: "state") { throw .invalidState(refusal) }
        guard paramsText.isObject else { throw .invalidState("params must be a JSON object") }
        self.name = name
        self.paramsText = paramsText
    }
}
