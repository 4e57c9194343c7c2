/// Reads a JSON object of plain members without building a `JSONValue` tree: the fast way
/// through the bodies that nearly every write carries (`{"screen": "detail", "params": {...}}`).
///
/// Plain means: keys and strings of printable ASCII with no escape; values that are such
/// strings, numbers without an exponent, `null`, or (as members of the outer object) objects
/// whose own values are such strings, numbers, `true`, `false` or `null`. Anything else (an escape,
/// a byte above ASCII, an array, deeper nesting, a grammar error, a limit reached) makes the
/// read give up and return false; the caller then parses with `JSONParser`, which accepts
/// it or refuses it with its exact error. So what this accepts, the parser accepts the same
/// way, and this never needs an error message of its own (JSONTests: `PlainJSONObjectTests`
/// compares the two on generated bodies).
///
/// A nested object comes back as its `JSONText`, written here as `JSONWriter` writes it: with
/// no escape in any string and no exponent, that is the members' bytes without the blanks.
public enum PlainJSONObject {
    /// A member's value, valid only during the call that receives it.
    public enum Value {
        /// A string's bytes, without the quotes: printable ASCII, nothing escaped.
        case string(UnsafeBufferPointer<UInt8>)
        /// An object of plain scalars, as compact text.
        case object(JSONText)
        /// An object whose members are plain, as its bytes (only with `nestedMembers`).
        case members(UnsafeBufferPointer<UInt8>)
        /// A number without an exponent, as its bytes. The caller reads it; a number that is
        /// not followed by a separator (`01`, `1e5`) makes the whole read give up.
        case number(UnsafeBufferPointer<UInt8>)
        case null
    }

    /// Members at most in a nested object: duplicate keys are found by comparing each key with
    /// those before it, which stays cheap only for a few.
    static let maxNestedMembers = 16

    /// Calls `member` with each member of the object that `bytes` holds, in order, while it
    /// returns true. False when `bytes` is not a plain object within the parser's limits
    /// (`maxDepth` as `JSONParser` counts it, `maxStringBytes` for keys and strings), or when
    /// `member` returned false. Duplicate keys of the outer object are the caller's to refuse.
    ///
    /// With `nestedMembers`, a member that is an object comes as `.members`, its bytes to read
    /// with this function again (at `maxDepth - 1`), and may itself hold objects of scalars:
    /// one level more, for a body such as a creation's, `{"root": {"screen": ..., "params": {...}}}`.
    public static func forEachMember(
        in bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int, nestedMembers: Bool = false,
        _ member: (_ key: UnsafeBufferPointer<UInt8>, _ value: Value) -> Bool
    ) -> Bool {
        guard maxDepth >= 1 else { return false }
        var scanner = Scanner(bytes: bytes, maxStringBytes: maxStringBytes)
        scanner.skipWhitespace()
        guard scanner.take(.openBrace) else { return false }
        scanner.skipWhitespace()
        if !scanner.take(.closeBrace) {
            repeat {
                scanner.skipWhitespace()
                guard let key = scanner.plainString() else { return false }
                scanner.skipWhitespace()
                guard scanner.take(.colon) else { return false }
                scanner.skipWhitespace()
                let value: Value
                switch scanner.peek() {
                case .quote?:
                    guard let string = scanner.plainString() else { return false }
                    value = .string(string)
                case .letterN?:
                    guard scanner.take("null") else { return false }
                    value = .null
                case .openBrace? where nestedMembers:
                    guard maxDepth >= 2, let members = scanner.membersObject() else { return false }
                    value = .members(members)
                case .openBrace?:
                    guard maxDepth >= 2, let text = scanner.nestedObject() else { return false }
                    value = .object(text)
                default:
                    guard let number = scanner.plainNumber() else { return false }
                    value = .number(number)
                }
                guard member(key, value) else { return false }
                scanner.skipWhitespace()
            } while scanner.take(.comma)
            guard scanner.take(.closeBrace) else { return false }
        }
        scanner.skipWhitespace()
        return scanner.atEnd
    }

    /// The text of the object `bytes` hold, blanks around it allowed, when it is an object of
    /// plain scalars (what a member read as `.object` may be); nil for anything else, which the
    /// caller parses with `JSONParser`.
    static func objectText(_ bytes: UnsafeBufferPointer<UInt8>, maxStringBytes: Int) -> JSONText? {
        var scanner = Scanner(bytes: bytes, maxStringBytes: maxStringBytes)
        scanner.skipWhitespace()
        guard let text = scanner.nestedObject() else { return nil }
        scanner.skipWhitespace()
        return scanner.atEnd ? text : nil
    }

    /// A read position in `bytes`. Every read checks `index < bytes.count` first.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxStringBytes: Int
        var index = 0

        var atEnd: Bool { index == bytes.count }

        func peek() -> UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count,
                PlainJSONObject.same(
                    UnsafeBufferPointer(rebasing: bytes[index..<index + count]),
                    UnsafeBufferPointer(start: literal.utf8Start, count: count))
            else { return false }
            index += count
            return true
        }

        /// The four bytes RFC 8259 names, as `JSONParser` skips them; how many there were.
        @discardableResult
        mutating func skipWhitespace() -> Int {
            let start = index
            while let byte = peek(), byte == .space || byte == .tab || byte == .lineFeed || byte == .carriageReturn {
                index += 1
            }
            return index - start
        }

        /// A string at the read position, without its quotes, if plain and within the limit.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard take(.quote) else { return nil }
            let start = index
            while let byte = peek(), byte != .quote {
                // Control characters are refused by the parser, escapes and non-ASCII need its
                // checks: both are left to it.
                guard byte >= 0x20, byte < 0x80, byte != .backslash else { return nil }
                index += 1
            }
            guard index < bytes.count, index - start <= maxStringBytes else { return nil }
            index += 1
            return UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
        }

        /// Steps over a number without an exponent, by the parser's grammar. It stops before an
        /// exponent, or a digit after a leading zero, and what follows a value must then be a
        /// separator: so those are refused here, and left to the parser (an exponent needs its
        /// range check). So is an integer part long enough to overflow a `Double`.
        mutating func plainNumber() -> UnsafeBufferPointer<UInt8>? {
            let start = index
            _ = take(.minus)
            let integerStart = index
            guard let first = peek(), first.isDigit else { return nil }
            index += 1
            if first != .digitZero {
                while let byte = peek(), byte.isDigit { index += 1 }
            }
            guard index - integerStart <= 308 else { return nil }
            if take(.period) {
                guard let digit = peek(), digit.isDigit else { return nil }
                while let byte = peek(), byte.isDigit { index += 1 }
            }
            return UnsafeBufferPointer(rebasing: bytes[start..<index])
        }

        /// A nested object of plain scalars at the read position, as the text the writer would
        /// write for it: its tokens without the blanks between them, in a string of exactly that
        /// size, since the session keeps it. Most clients send no blanks: then it is a copy.
        mutating func nestedObject() -> JSONText? {
            let start = index
            guard let blanks = skipNestedObject() else { return nil }
            let source = UnsafeBufferPointer(rebasing: bytes[start..<index])
            if blanks == 0 { return JSONText(writtenBy: String(decoding: source, as: UTF8.self)) }
            return JSONText(writtenBy: String(unsafeUninitializedCapacity: source.count - blanks) { text in
                // Its strings have no escapes, so every quote opens or closes one.
                var written = 0
                var inString = false
                for byte in source {
                    if byte == .quote {
                        inString.toggle()
                    } else if !inString, byte == .space || byte == .tab || byte == .lineFeed || byte == .carriageReturn {
                        continue
                    }
                    text[written] = byte
                    written += 1
                }
                return written
            })
        }

        /// Steps over a nested object of plain scalars, checked as `nestedObject` reads it: how
        /// many blanks it holds between its tokens, or nil when it is not one.
        mutating func skipNestedObject() -> Int? {
            guard take(.openBrace) else { return nil }
            var blanks = 0
            let checked = withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: PlainJSONObject.maxNestedMembers) {
                keys -> Bool in
                var count = 0
                blanks += skipWhitespace()
                if take(.closeBrace) { return true }
                repeat {
                    blanks += skipWhitespace()
                    guard count < PlainJSONObject.maxNestedMembers, let key = plainString() else { return false }
                    // The read position stands after the key's closing quote.
                    let keyStart = index - 1 - key.count
                    // The parser refuses a key given twice.
                    let repeated = keys[0..<count].contains { PlainJSONObject.same(UnsafeBufferPointer(rebasing: bytes[$0]), key) }
                    guard !repeated else { return false }
                    keys[count] = keyStart..<keyStart + key.count
                    count += 1
                    blanks += skipWhitespace()
                    guard take(.colon) else { return false }
                    blanks += skipWhitespace()
                    guard plainScalar() else { return false }
                    blanks += skipWhitespace()
                } while take(.comma)
                return take(.closeBrace)
            }
            return checked ? blanks : nil
        }

        /// Steps over an object whose values are plain scalars or nested objects of them, to
        /// find its end: its bytes, which the caller reads again with `forEachMember`, and
        /// which that read checks in full (its keys, and how deep it nests).
        mutating func membersObject() -> UnsafeBufferPointer<UInt8>? {
            let start = index
            guard take(.openBrace) else { return nil }
            skipWhitespace()
            if !take(.closeBrace) {
                repeat {
                    skipWhitespace()
                    guard plainString() != nil else { return nil }
                    skipWhitespace()
                    guard take(.colon) else { return nil }
                    skipWhitespace()
                    if peek() == .openBrace {
                        guard skipNestedObject() != nil else { return nil }
                    } else {
                        guard plainScalar() else { return nil }
                    }
                    skipWhitespace()
                } while take(.comma)
                guard take(.closeBrace) else { return nil }
            }
            return UnsafeBufferPointer(rebasing: bytes[start..<index])
        }

        /// Steps over a plain string (with its quotes), a number, `true`, `false` or `null`.
        mutating func plainScalar() -> Bool {
            switch peek() {
            case .quote?: plainString() != nil
            case .letterT?: take("true")
            case .letterF?: take("false")
            case .letterN?: take("null")
            default: plainNumber() != nil
            }
        }
    }
}

extension PlainJSONObject {
    /// Byte for byte: a short loop, where `elementsEqual` went through generic iterators.
    public static func same(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        for index in 0..<left.count where left[index] != right[index] { return false }
        return true
    }

    /// Whether `key` is `literal`, byte for byte.
    public static func same(_ key: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        same(key, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= .digitZero && self <= .digitNine }
}
