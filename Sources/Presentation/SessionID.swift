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

    /// A number spread evenly over ids, 0 to 63, for picking a shard without hashing the
    /// whole id: the six random bits its first character encodes. (Not the last character:
    /// 22 characters carry 132 bits for 128, so the last one has only 2 random bits.)
    public var shardKey: Int {
        guard let first = rawValue.utf8.first else { return 0 }
        switch first {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(first - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(first - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(first - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): return 62
        default: return 63
        }
    }
}
