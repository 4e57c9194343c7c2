/// A session's public name: 128 random bits in URL-safe base64, 22 characters.
///
/// Kept as its 128 bits rather than as its characters: a String of 22 characters is too long
/// to be stored inline, so every session paid a 64-byte allocation for its name. The
/// characters are made again when the name is written out.
public struct SessionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Characters in an id's spelling.
    public static let length = 22

    /// The first 64 bits and the last 64, in the order the characters spell them.
    private let high: UInt64
    private let low: UInt64

    /// Accepts only what `random()` produces, so garbage from a URL is refused before any lookup.
    ///
    /// 22 characters hold 132 bits and an id has 128: the last character carries 2 bits, and
    /// in an id this server made its other 4 are zero. Other spellings name no session.
    public init?(rawValue: String) {
        var rawValue = rawValue
        // Read in place: every request names its session, and iterating a `String`'s UTF-8
        // view decodes its representation at each step.
        guard let bits = rawValue.withUTF8(Self.bits(spelledBy:)) else { return nil }
        (high, low) = bits
    }

    /// The id spelled by a slice of a longer string, such as a request's path, read in place.
    public init?(_ spelling: Substring) {
        var spelling = spelling
        guard let bits = spelling.withUTF8(Self.bits(spelledBy:)) else { return nil }
        (high, low) = bits
    }

    private static func bits(spelledBy spelling: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard spelling.count == length else { return nil }
        return Base64URL.withValueTable { values in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<length - 1 {
                let value = values[Int(spelling[index])]
                guard value < 64 else { return nil }
                high = high << 6 | low >> 58
                low = low << 6 | UInt64(value)
            }
            let last = values[Int(spelling[length - 1])]
            guard last < 64, last & 0x0F == 0 else { return nil }
            return (high << 2 | low >> 62, low << 2 | UInt64(last >> 4))
        }
    }

    /// How many random bytes an id is made of.
    static let randomByteCount = 16

    /// A new id from the system's cryptographically secure generator, in one call to it.
    public static func random() -> SessionID {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { SecureRandom.fill($0) }
        return SessionID(high: words.0, low: words.1)
    }

    /// The id made of `bytes`, `randomByteCount` of them from the secure generator, read in
    /// order (big-endian), so that the id spells them as base64 would.
    init(randomBytes bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == Self.randomByteCount, "an id is made of \(Self.randomByteCount) random bytes")
        self.init(
            high: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
            low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    /// The id of a session that has none yet (`ImportedSession`): all zero bits, which
    /// `random()` draws once in 2^128 times, and never names a stored session.
    static let unassigned = SessionID(high: 0, low: 0)

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public var rawValue: String {
        String(unsafeUninitializedCapacity: Self.length) { buffer in
            spell(into: buffer)
            return Self.length
        }
    }

    /// Writes the id's `length` characters at `buffer`: for writers, which would otherwise
    /// make a String of 22 characters, too long to be held inline, for every answer.
    public func spell(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= Self.length, "an id takes \(Self.length) characters")
        // The 128 bits shifted out of the top six at a time; the last character holds the two left.
        var (high, low) = (high, low)
        for index in 0..<Self.length - 1 {
            buffer[index] = Base64URL.character(of: UInt8(high >> 58))
            high = high << 6 | low >> 58
            low <<= 6
        }
        buffer[Self.length - 1] = Base64URL.character(of: UInt8(high >> 62) << 4)
    }

    public var description: String { rawValue }

    /// Character `index` of the id's spelling.
    private func character(at index: Int) -> UInt8 {
        Base64URL.character(of: sextet(at: index))
    }

    /// The 6-bit value character `index` spells (the last one holds 2 bits, shifted up).
    private func sextet(at index: Int) -> UInt8 {
        guard index < Self.length - 1 else { return UInt8(low & 0x03) << 4 }
        // Character `index` holds the 6 bits from 6 × index down from the most significant of
        // the 128, so its lowest bit sits this far above bit 0; the 10th straddles the halves.
        let shift = 122 - 6 * index
        let bits: UInt64
        switch shift {
        case 64...: bits = high >> UInt64(shift - 64)
        case 59..<64: bits = high << UInt64(64 - shift) | low >> UInt64(shift)
        default: bits = low >> UInt64(shift)
        }
        return UInt8(bits & 0x3F)
    }

    // Written out: for a RawRepresentable type, the standard library's defaults compare and
    // hash `rawValue`, which would spell the id out on every dictionary lookup.
    public static func == (left: SessionID, right: SessionID) -> Bool {
        left.high == right.high && left.low == right.low
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    /// True when `raw` has the shape of an id, 22 URL-safe base64 characters, whether or not
    /// an id is spelled so: what a listing accepts as the place to continue from.
    public static func hasShape(_ raw: String) -> Bool {
        Base64URL.isEncoded(raw, length: length)
    }

    /// True when this id's characters sort after `spelling` (ASCII, as `<` orders ids). The
    /// spelling need not be an id's: a client may page from any 22 characters.
    public func sorts(after spelling: String) -> Bool {
        var index = 0
        for byte in spelling.utf8 {
            guard index < Self.length else { return false }
            let mine = character(at: index)
            if mine != byte { return mine > byte }
            index += 1
        }
        return index < Self.length
    }

    /// The same order as the ids' characters (ASCII), which listings page through.
    public static func < (left: SessionID, right: SessionID) -> Bool {
        for index in 0..<length {
            let a = left.character(at: index)
            let b = right.character(at: index)
            if a != b { return a < b }
        }
        return false
    }

    /// Spreads sessions over the store's shards: the first character's value, 0 to 63.
    public var shardKey: Int { Int(high >> 58) }
}
