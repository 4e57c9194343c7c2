/// Why a JSON text was refused, and the byte offset where the parser noticed.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offset, from 0, of the byte at fault; the input's length when the input ended early.
    public let offset: Int
    public let reason: Reason

    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// What was wrong with the text; each case names one rule of RFC 8259 or one of our limits.
    public enum Reason: Hashable, Sendable {
        /// The text ended inside a value, or held no value at all.
        case unexpectedEnd
        /// A byte that cannot come here: a trailing comma, a comment, a single quote, a BOM.
        case unexpectedByte(UInt8)
        /// A string's bytes are not well-formed UTF-8: overlong, a surrogate, > U+10FFFF, cut short.
        case invalidUTF8
        /// An escape JSON does not define, bad hex digits, or a lone UTF-16 surrogate.
        case invalidEscape
        /// A raw byte below 0x20 inside a string; JSON requires those to be escaped.
        case controlCharacterInString
        /// A number that breaks the grammar: a leading zero, a bare `-`, `.` or `e` without digits.
        case invalidNumber
        /// A number too large for a finite `Double`, such as `1e999`.
        case numberOutOfRange
        /// The same key twice in one object; which value wins would be a guess.
        case duplicateKey(String)
        /// Arrays and objects nested deeper than the parser's `maxDepth`.
        case tooDeep(limit: Int)
        /// A string longer, in UTF-8 bytes after unescaping, than the parser's `maxStringBytes`.
        case stringTooLong(limit: Int)
        /// Something other than whitespace after the one value a JSON text may hold.
        case trailingData
    }

    /// A sentence for a human reading an error response, such as `duplicate key "a" at byte 12`.
    public var message: String {
        "\(problem) at byte \(offset)"
    }

    public var description: String { message }

    private var problem: String {
        switch reason {
        case .unexpectedEnd: "unexpected end of input"
        case .unexpectedByte(let byte): "unexpected \(Self.describe(byte))"
        case .invalidUTF8: "invalid UTF-8"
        case .invalidEscape: "invalid escape sequence"
        case .controlCharacterInString: "unescaped control character in a string"
        case .invalidNumber: "invalid number"
        case .numberOutOfRange: "number out of range"
        case .duplicateKey(let key): "duplicate key \"\(Self.abbreviate(key))\""
        case .tooDeep(let limit): "nesting deeper than \(limit) levels"
        case .stringTooLong(let limit): "string longer than \(limit) bytes"
        case .trailingData: "data after the JSON value"
        }
    }

    /// Printable ASCII reads best as itself; anything else as hex, since it may not be a character.
    private static func describe(_ byte: UInt8) -> String {
        guard (0x21...0x7E).contains(byte) else {
            let hex = String(byte, radix: 16, uppercase: true)
            return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
        }
        return "character '\(Character(Unicode.Scalar(byte)))'"
    }

    /// A key may be up to `maxStringBytes` long; the message only needs enough of it to recognise.
    private static func abbreviate(_ key: String) -> String {
        let limit = 40
        guard key.count > limit else { return key }
        return key.prefix(limit) + "…"
    }
}
