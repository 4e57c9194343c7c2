/// The URL-safe base64 alphabet without padding (RFC 4648 §5), for ids and tokens that go in URLs and headers.
enum Base64URL {
    /// Encodes `bytes` without `=` padding: 16 bytes give 22 characters, 32 give 43.
    ///
    /// Written into the string's own storage, three bytes at a time: every new session's
    /// token goes through here, and slices of the input and an array for the output made it
    /// 3,400 instructions (docs/performance.md, item 85).
    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var written = 0
            var index = 0
            while index < bytes.count {
                let count = min(3, bytes.count - index)
                var bits = Int(bytes[index]) << 16
                if count > 1 { bits |= Int(bytes[index + 1]) << 8 }
                if count > 2 { bits |= Int(bytes[index + 2]) }
                // n bytes carry 8n bits, which need n + 1 six-bit characters.
                for position in 0...count {
                    output[written] = character(of: UInt8(truncatingIfNeeded: bits >> (18 - 6 * position)))
                    written += 1
                }
                index += 3
            }
            return written
        }
    }

    /// The character for a 6-bit value (by arithmetic: session ids are spelled often).
    static func character(of value: UInt8) -> UInt8 {
        switch value & 0x3F {
        case let value where value < 26: UInt8(ascii: "A") + value
        case let value where value < 52: UInt8(ascii: "a") + value - 26
        case let value where value < 62: UInt8(ascii: "0") + value - 52
        case 62: UInt8(ascii: "-")
        default: UInt8(ascii: "_")
        }
    }

    /// The 6-bit value a character stands for; nil for a byte outside the alphabet.
    static func value(of character: UInt8) -> UInt8? {
        let value = values[Int(character)]
        return value < 64 ? value : nil
    }

    /// Runs `body` with `value(of:)`'s table in hand (0xFF outside the alphabet), for a loop
    /// over many characters: the table is a lazily made global, and every reach for it
    /// checks that it was made.
    static func withValueTable<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        values.withUnsafeBufferPointer(body)
    }

    /// `value(of:)` for every byte, 0xFF outside the alphabet: one load for each character of
    /// the session id every request names, where the ranges took a chain of branches.
    private static let values: [UInt8] = (0...255).map { byte in
        (0..<64).first { character(of: UInt8($0)) == UInt8(byte) }.map(UInt8.init) ?? 0xFF
    }

    /// True when `string` has exactly `length` characters, all from the alphabet.
    static func isEncoded(_ string: String, length: Int) -> Bool {
        string.utf8.count == length && string.utf8.allSatisfy { value(of: $0) != nil }
    }
}
