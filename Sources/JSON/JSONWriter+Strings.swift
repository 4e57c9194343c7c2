// Strings, quoted and escaped: most of what an answer's bytes are, so the common case
// (nothing to escape) is copied a word at a time.
extension JSONWriter {
    @usableFromInline
    mutating func appendQuoted(_ string: String) {
        var string = string
        string.withUTF8 { appendQuoted($0) }
    }

    /// Writes `utf8` quoted. `utf8` is valid UTF-8, as every `String` is, so multi-byte
    /// characters pass through unchanged.
    ///
    /// Answers are mostly ids, names and keys with nothing to escape, so room for the string
    /// as it is is made once and it is copied eight bytes at a time while no byte of a word is
    /// a control character, a quote, a backslash or above ASCII (`isPlain`), then byte by
    /// byte; the first byte that may need an escape hands the rest to `appendEscaping`.
    @usableFromInline
    mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        if count + utf8.count + 2 > capacity { grow(toHold: count + utf8.count + 2) }
        storage[count] = .quote
        var written = count + 1
        var index = 0
        while index < utf8.count {
            if utf8.count - index >= 8 {
                let word = UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if Self.isPlain(word) {
                    UnsafeMutableRawPointer(storage + written).storeBytes(of: word, as: UInt64.self)
                    written += 8
                    index += 8
                    continue
                }
            }
            let byte = utf8[index]
            guard byte >= 0x20 && byte < 0x80 && byte != .quote && byte != .backslash else {
                count = written
                appendEscaping(UnsafeBufferPointer(rebasing: utf8[index...]))
                return append(.quote)
            }
            storage[written] = byte
            written += 1
            index += 1
        }
        storage[written] = .quote
        count = written + 1
    }

    /// The rest of a string from its first byte that may need an escape: runs that need none
    /// are copied in one go.
    private mutating func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            // `& 0xDF == 0xC2` is 0xC2 or 0xE2, the two lead bytes below: one test where two
            // cost a push/pop about 160 instructions.
            if byte >= 0x20 && byte != .quote && byte != .backslash && byte & 0xDF != 0xC2 {
                index += 1
            } else if byte == 0xC2 {
                // U+0080 to U+009F (C2 80 to C2 9F) are the C1 controls: valid JSON, but a
                // terminal that honours them in UTF-8 (VTE's, GNU screen) takes U+009B as ESC [,
                // so a path a client sent could recolour or clear the screen of an operator
                // reading the log. Escaped, they are six inert bytes, as the C0 controls are.
                guard index + 1 < utf8.count, utf8[index + 1] & 0xE0 == 0x80 else {
                    index += 1
                    continue
                }
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendUnicodeEscape(UInt16(utf8[index + 1]))
                index += 2
                runStart = index
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
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendUnicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                index += 3
                runStart = index
            } else {
                append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(for: byte)
                index += 1
                runStart = index
            }
        }
        append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
    }

    /// True when none of the eight bytes of `word` is below 0x20, `"`, `\` or above 0x7F.
    ///
    /// `(x - 0x01…) & ~x & 0x80…` is non-zero exactly when some byte of `x` is zero; `x` is
    /// the word XORed with the byte sought, or the word itself less 0x20 for the control
    /// characters; the word's own high bits catch the bytes above ASCII.
    @inline(__always)
    static func isPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8.quote))
        let backslashes = word ^ (ones &* UInt64(UInt8.backslash))
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control | word) & highs == 0
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
            append(.backslash)
            append(short)
        } else {
            appendUnicodeEscape(UInt16(byte))
        }
    }

    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        append(.backslash)
        append(.letterU)
        for shift in stride(from: 12, through: 0, by: -4) {
            append(Self.hexDigits[Int(unit >> UInt16(shift) & 0xF)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
