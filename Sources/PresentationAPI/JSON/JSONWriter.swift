public import Presentation

/// Builds compact JSON text straight into a byte buffer, for responses written without `Codable`.
///
/// Commas are placed for the caller: inside an array every value, inside an object every `key(_:)`,
/// gets one when it is not the first. Misnesting (an `endObject()` with nothing open) is a
/// programming error and stops the process.
public struct JSONWriter: Sendable {
    /// The JSON text written so far; take it when done.
    public internal(set) var bytes: [UInt8] = []
    /// One entry per open array or object: whether its next element needs a comma first.
    private var needsComma: [Bool] = []
    /// Set by `key(_:)`: the next value belongs to that key and takes no comma of its own.
    private var afterKey = false

    /// `capacity` is a guess at the output size in bytes, to grow the buffer fewer times.
    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
        needsComma.reserveCapacity(8)
    }

    /// Reopens a complete JSON object, `object`, to add members to it; `endObject()` closes it again.
    public init(continuing object: [UInt8]) {
        precondition(object.last == .closeBrace, "JSONWriter(continuing:) needs a JSON object")
        bytes = object
        bytes.removeLast()
        // `{}` has no member yet; anything longer has, so the next key takes a comma.
        needsComma = [object.count > 2]
    }

    /// Writes any value; `.number` goes out as its stored spelling, which the parser checked.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let bool): writeBool(bool)
        case .number(let spelling):
            startValue()
            bytes.append(contentsOf: spelling.utf8)
        case .string(let string): writeString(string)
        case .array(let items):
            beginArray()
            for item in items { write(item) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(member.key)
                write(member.value)
            }
            endObject()
        }
    }

    public mutating func writeString(_ string: String) {
        startValue()
        appendQuoted(string)
    }

    public mutating func writeInt(_ value: Int) {
        startValue()
        if value < 0 { bytes.append(.minus) }
        // Digits come out least significant first; write them, then turn them around in place.
        let start = bytes.count
        var rest = value.magnitude
        repeat {
            bytes.append(.digitZero + UInt8(truncatingIfNeeded: rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    public mutating func writeBool(_ value: Bool) {
        startValue()
        bytes.append(contentsOf: value ? Self.trueLiteral : Self.falseLiteral)
    }

    public mutating func writeNull() {
        startValue()
        bytes.append(contentsOf: Self.nullLiteral)
    }

    public mutating func beginObject() {
        startValue()
        bytes.append(.openBrace)
        needsComma.append(false)
    }

    /// Writes the key of the next member; the value written next belongs to it.
    ///
    /// Our own literal names never need escaping, so they are copied as they are: keys are most
    /// of what a session's JSON is made of, and scanning them showed in profiles.
    public mutating func key(_ name: StaticString) {
        startValue()
        bytes.append(.quote)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(.quote)
        bytes.append(.colon)
        afterKey = true
    }

    /// Writes the key of the next member; the value written next belongs to it.
    public mutating func key(_ name: String) {
        startValue()
        appendQuoted(name)
        bytes.append(.colon)
        afterKey = true
    }

    public mutating func endObject() {
        precondition(needsComma.popLast() != nil, "JSONWriter.endObject() without an open object")
        bytes.append(.closeBrace)
    }

    public mutating func beginArray() {
        startValue()
        bytes.append(.openBracket)
        needsComma.append(false)
    }

    public mutating func endArray() {
        precondition(needsComma.popLast() != nil, "JSONWriter.endArray() without an open array")
        bytes.append(.closeBracket)
    }

    private static let trueLiteral = Array("true".utf8)
    private static let falseLiteral = Array("false".utf8)
    private static let nullLiteral = Array("null".utf8)

    /// Writes the comma that separates this element from the previous one, if there is one.
    mutating func startValue() {
        if afterKey {
            afterKey = false
        } else if let last = needsComma.indices.last {
            if needsComma[last] { bytes.append(.comma) } else { needsComma[last] = true }
        }
    }

    private mutating func appendQuoted(_ string: String) {
        var string = string
        string.withUTF8 { appendQuoted($0) }
    }

    /// Copies runs of bytes that need no escape in one go; `utf8` is valid UTF-8, as every
    /// `String` is, so multi-byte characters pass through unchanged.
    private mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(.quote)
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != .quote && byte != .backslash && byte != 0xE2 {
                index += 1
            } else if byte == 0xE2 {
                // U+2028 and U+2029 (E2 80 A8, E2 80 A9) are valid JSON but end a line in
                // JavaScript source, so escaping them keeps the output safe to embed in a script.
                let isSeparator =
                    index + 2 < utf8.count && utf8[index + 1] == 0x80
                    && utf8[index + 2] & 0xFE == 0xA8
                guard isSeparator else {
                    index += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendUnicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                index += 3
                runStart = index
            } else {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(for: byte)
                index += 1
                runStart = index
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        bytes.append(.quote)
    }

    /// The short escapes where JSON has one, `\u00XX` for the other control characters.
    private mutating func appendEscape(for byte: UInt8) {
        let short: UInt8? =
            switch byte {
            case .quote, .backslash: byte
            case .lineFeed: .letterN
            case .carriageReturn: .letterR
            case .tab: .letterT
            case 0x08: .letterB
            case 0x0C: .letterF
            default: nil
            }
        if let short {
            bytes.append(.backslash)
            bytes.append(short)
        } else {
            appendUnicodeEscape(UInt16(byte))
        }
    }

    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        bytes.append(.backslash)
        bytes.append(.letterU)
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[Int(unit >> UInt16(shift) & 0xF)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
