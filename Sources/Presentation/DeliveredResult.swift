public import JSON

/// A result handed back to a screen, and where it came from.
public struct DeliveredResult: Hashable, Sendable {
    public var source: ResultSource
    public var value: JSONValue
    /// The revision that delivered it, so a client can tell a new result from one it has seen.
    public var revision: Int

    public init(source: ResultSource, value: JSONValue, revision: Int) {
        self.source = source
        self.value = value
        self.revision = revision
    }
}
