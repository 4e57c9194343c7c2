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

    /// How many random bytes a token spells.
    static let randomByteCount = 32

    /// A new token from the system's cryptographically secure generator.
    public static func random() -> SessionToken {
        withUnsafeTemporaryAllocation(byteCount: randomByteCount, alignment: 1) { bytes in
            SecureRandom.fill(bytes)
            return SessionToken(spelling: UnsafeRawBufferPointer(bytes))
        }
    }

    /// The token that spells `bytes`, `randomByteCount` of them from the secure generator.
    init(spelling bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == Self.randomByteCount, "a token spells \(Self.randomByteCount) random bytes")
        self.init(checked: Base64URL.encode(bytes))
    }

    private init(checked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Redacted, so that interpolating a token into a log line cannot leak it.
    public var description: String { "SessionToken(redacted)" }
}
