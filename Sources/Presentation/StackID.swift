/// Names one stack within a session: "k" and a number from the session's id counter.
public struct StackID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts any non-empty id of up to 64 bytes: an id the session never issued is then
    /// reported as not found, which tells a client more than a parse error would.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 64 else { return nil }
        self.rawValue = rawValue
    }

    /// The id for number `number` of the session's counter.
    init(number: Int) {
        self.rawValue = "k\(number)"
    }

    public var description: String { rawValue }
}
