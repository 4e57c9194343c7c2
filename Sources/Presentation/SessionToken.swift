/// The bearer secret of one session: 256 random bits in URL-safe base64, 43 characters.
///
/// Check a presented token with `matches(_:)`, not `==`: it takes the same time wherever the
/// first difference is, so response timing does not reveal how much of a guess was right.
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

    /// True when `presented` is this token, compared in constant time for tokens of the right length.
    ///
    /// Every byte is compared even after a difference is found; only a wrong length returns early,
    /// and the length of a token is no secret.
    public func matches(_ presented: String) -> Bool {
        let expected = Array(rawValue.utf8)
        let given = Array(presented.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices {
            difference |= expected[index] ^ given[index]
        }
        return difference == 0
    }

    /// Redacted, so that interpolating a token into a log line cannot leak it.
    public var description: String { "SessionToken(redacted)" }
}
