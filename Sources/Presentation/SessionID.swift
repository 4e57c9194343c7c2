/// A session's public name: 128 random bits in URL-safe base64, 22 characters.
public struct SessionID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts only the shape `random()` produces, so garbage from a URL is refused before any lookup.
    public init?(rawValue: String) {
        guard Base64URL.isEncoded(rawValue, length: 22) else { return nil }
        self.rawValue = rawValue
    }

    /// A new id from the system's cryptographically secure generator.
    public static func random() -> SessionID {
        SessionID(checked: Base64URL.encode(Base64URL.randomBytes(count: 16)))
    }

    private init(checked rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
