public import JSON

/// What a client asks for when it opens a screen; checked once here, so the tree only holds valid screens.
public struct ScreenSpec: Hashable, Sendable {
    public let name: String
    public let title: String?
    /// Always a JSON object, as text: encoded once here, copied as it is from then on.
    public let paramsText: JSONText
    /// The params as a value (decoded from `paramsText`).
    public var params: JSONValue { paramsText.value }

    public static let maxNameBytes = 128
    public static let maxTitleBytes = 512

    public init(name: String, title: String? = nil, params: JSONValue = .emptyObject) throws(PresentationError) {
        try self.init(name: name, title: title, paramsText: JSONText(params))
    }

    public init(name: String, title: String? = nil, paramsText: JSONText) throws(PresentationError) {
        if let refusal = Self.refusal(ofName: name, as: "screen") { throw .invalidScreen(refusal) }
        if let title, title.utf8.count > Self.maxTitleBytes {
            throw .invalidScreen("the title is longer than \(Self.maxTitleBytes) bytes")
        }
        guard paramsText.isObject else { throw .invalidScreen("params must be a JSON object") }
        self.name = name
        self.title = title
        self.paramsText = paramsText
    }

    /// Why `name` cannot name a screen or a state (`kind`), nil when it can: 1 to 128 bytes.
    static func refusal(ofName name: String, as kind: String) -> String? {
        if name.isEmpty { return "the \(kind) name is empty" }
        if name.utf8.count > maxNameBytes { return "the \(kind) name is longer than \(maxNameBytes) bytes" }
        return nil
    }
}
