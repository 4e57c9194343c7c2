public import JSON

/// A result handed back to a screen, and where it came from.
public struct DeliveredResult: Hashable, Sendable {
    public var source: ResultSource
    public let value: JSONValue
    /// `value.heldBytes`, taken once: a session's size is weighed on every change that adds
    /// to it (`Limits.maxSessionBytes`), and walking a large result each time made every push
    /// of its session cost as much as the result has values.
    let valueBytes: Int
    /// The revision that delivered it, so a client can tell a new result from one it has seen.
    public var revision: Int

    public init(source: ResultSource, value: JSONValue, revision: Int) {
        self.source = source
        self.value = value
        self.valueBytes = value.heldBytes
        self.revision = revision
    }
}
