/// The bearer secret of one session: 256 random bits in URL-safe base64, 43 characters.
///
/// Sessions keep only its digest (`SessionTokenDigest`): the token itself is handed to the
/// client once, when the session is created or its token rotated, and never stored.
public struct SessionToken: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard Base64URL.isEncoded(rawValue, length: 43) else { return nil }
        self.rawValue = rawValue
    }

    /// A new token from the system's cryptographically secure generator.
    public static func random() -> SessionToken {
        SessionToken(checked: Base64URL.encode(Base64URL.randomBytes(count: 32)))
    }

    private init(checked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Redacted, so that interpolating a token into a log line cannot leak it.
    public var description: String { "SessionToken(redacted)" }
}
