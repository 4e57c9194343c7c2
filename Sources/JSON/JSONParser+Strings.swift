extension JSONParser.Cursor {
    /// Reads a string from its opening quote, checking its UTF-8 and unescaping as it goes.
    ///
    /// A string without escapes becomes a `String` straight from the input bytes; only escapes
    /// send bytes through `scratch`.
    mutating func parseString() throws(JSONParseError) -> String {
        let opening = index
        index += 1
        var runStart = index
        var escaped = false
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            let byte = bytes[index]
            switch byte {
            case .quote:
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if !escaped {
                    guard run.count <= maxStringBytes else { throw tooLong(at: opening) }
                    return String(decoding: run, as: UTF8.self)
                }
                scratch.append(contentsOf: run)
                guard scratch.count <= maxStringBytes else { throw tooLong(at: opening) }
                return String(decoding: scratch, as: UTF8.self)
            case .backslash:
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                escaped = true
                try parseEscape()
                runStart = index
            case 0..<0x20:
                throw failure(.controlCharacterInString)
            case 0x20..<0x80:
                index += 1
            default:
                try skipMultiByteScalar()
            }
        }
    }

    private func tooLong(at opening: Int) -> JSONParseError {
        failure(.stringTooLong(limit: maxStringBytes), at: opening)
    }

    /// Steps over one well-formed UTF-8 sequence of two to four bytes (Unicode's table 3-7),
    /// which excludes overlong forms, UTF-16 surrogates and anything above U+10FFFF.
    private mutating func skipMultiByteScalar() throws(JSONParseError) {
        let start = index
        let length: Int
        // Only the second byte has a narrower range than 0x80...0xBF, and only after these leads.
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[start] {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            second = 0x80...0x9F
        case 0xF0:
            length = 4
            second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            second = 0x80...0x8F
        default: throw failure(.invalidUTF8)
        }
        for position in start + 1..<start + length {
            guard position < bytes.count else { throw failure(.unexpectedEnd, at: bytes.count) }
            let allowed = position == start + 1 ? second : 0x80...0xBF
            guard allowed.contains(bytes[position]) else { throw failure(.invalidUTF8, at: start) }
        }
        index = start + length
    }

    /// Reads one escape from its backslash and appends the bytes it stands for to `scratch`.
    private mutating func parseEscape() throws(JSONParseError) {
        let start = index
        guard index + 1 < bytes.count else { throw failure(.unexpectedEnd, at: bytes.count) }
        let letter = bytes[index + 1]
        index += 2
        switch letter {
        case .quote, .backslash, .slash: scratch.append(letter)
        case .letterB: scratch.append(0x08)
        case .letterF: scratch.append(0x0C)
        case .letterN: scratch.append(.lineFeed)
        case .letterR: scratch.append(.carriageReturn)
        case .letterT: scratch.append(.tab)
        case .letterU: appendUTF8(try parseUnicodeEscape(from: start))
        default: throw failure(.invalidEscape, at: start)
        }
    }

    /// Reads the hex digits after `\u`, and a second `\uXXXX` when the first is a high surrogate:
    /// a pair becomes one scalar, and a surrogate without its partner is refused, since no
    /// `String` (nor valid UTF-8) can hold it.
    private mutating func parseUnicodeEscape(from start: Int) throws(JSONParseError) -> UInt32 {
        let unit = try parseHex4(escapeStart: start)
        switch unit {
        case 0xDC00...0xDFFF:
            throw failure(.invalidEscape, at: start)
        case 0xD800...0xDBFF:
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == .backslash else { throw failure(.invalidEscape, at: start) }
            guard index + 1 < bytes.count else { throw failure(.unexpectedEnd, at: bytes.count) }
            guard bytes[index + 1] == .letterU else { throw failure(.invalidEscape, at: start) }
            index += 2
            let low = try parseHex4(escapeStart: start)
            guard (0xDC00...0xDFFF).contains(low) else { throw failure(.invalidEscape, at: start) }
            return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        default:
            return unit
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw failure(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Appends a scalar already known not to be a surrogate; `\u0000` is valid JSON and kept.
    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8(scalar >> 12 & 0x3F))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }
}
