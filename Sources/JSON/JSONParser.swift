
/// Reads one JSON text, strictly as RFC 8259 defines it, into a `JSONValue`.
///
/// Strict because a client's value is stored and sent back to other clients: whatever a lenient
/// parser would guess at (comments, trailing commas, duplicate keys, lone surrogates, bad UTF-8)
/// is refused with the offset of the byte at fault. Numbers keep their spelling.
public struct JSONParser: Sendable {
    /// How deeply arrays and objects may nest, counted as `JSONValue.depth` counts (`[]` is 1).
    public var maxDepth: Int
    /// The longest string accepted, key or value, in UTF-8 bytes after unescaping.
    public var maxStringBytes: Int

    /// The parser recurses once per level, so `maxDepth` also bounds its use of the stack
    /// (measured: under 150 bytes a level in release builds, about 2.5 KB in debug builds).
    public init(maxDepth: Int = 32, maxStringBytes: Int = 1 << 20) {
        precondition(maxDepth >= 0 && maxStringBytes >= 0, "JSON parser limits cannot be negative")
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
    }

    /// The one value in `bytes`, which may be surrounded by whitespace and nothing else.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth, maxStringBytes: maxStringBytes)
            return try cursor.parseText()
        }
    }

    /// The one value in `text`, read as its UTF-8 bytes.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

extension JSONParser {
    /// A read position in the bytes of one `parse` call.
    ///
    /// It borrows the array's storage, so it must never outlive the `withUnsafeBufferPointer`
    /// closure that made it. Every read is preceded by an `index < bytes.count` check of our own.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        let maxStringBytes: Int
        var index = 0
        var depth = 0
        /// The unescaped bytes of a string with escapes, kept to reuse its capacity across strings.
        var scratch: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.maxStringBytes = maxStringBytes
        }

        mutating func parseText() throws(JSONParseError) -> JSONValue {
            skipWhitespace()
            let value = try parseValue()
            skipWhitespace()
            guard index == bytes.count else { throw failure(.trailingData) }
            return value
        }

        func failure(_ reason: JSONParseError.Reason, at offset: Int? = nil) -> JSONParseError {
            JSONParseError(offset: offset ?? index, reason: reason)
        }

        /// The byte at the read position, which must exist.
        func peek() throws(JSONParseError) -> UInt8 {
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            return bytes[index]
        }

        /// Only the four bytes RFC 8259 names: no form feed, no vertical tab, no Unicode spaces.
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case .space, .tab, .lineFeed, .carriageReturn: index += 1
                default: return
                }
            }
        }

        mutating func parseValue() throws(JSONParseError) -> JSONValue {
            let byte = try peek()
            switch byte {
            case .openBrace: return try parseObject()
            case .openBracket: return try parseArray()
            case .quote: return .string(try parseString())
            case .letterT:
                try consume("true")
                return .bool(true)
            case .letterF:
                try consume("false")
                return .bool(false)
            case .letterN:
                try consume("null")
                return .null
            case .minus, .digitZero ... .digitNine: return .number(try parseNumber())
            default: throw failure(.unexpectedByte(byte))
            }
        }

        /// Steps over `true`, `false` or `null`, whose first letter the caller has seen.
        mutating func consume(_ literal: StaticString) throws(JSONParseError) {
            let count = literal.utf8CodeUnitCount
            for letter in UnsafeBufferPointer(start: literal.utf8Start, count: count) {
                let byte = try peek()
                guard byte == letter else { throw failure(.unexpectedByte(byte)) }
                index += 1
            }
        }

        /// Counts one more level of nesting at the opening bracket or brace, and steps over it.
        mutating func enterContainer() throws(JSONParseError) {
            guard depth < maxDepth else { throw failure(.tooDeep(limit: maxDepth)) }
            depth += 1
            index += 1
        }

        mutating func parseArray() throws(JSONParseError) -> JSONValue {
            try enterContainer()
            var items: [JSONValue] = []
            skipWhitespace()
            if try peek() == .closeBracket {
                index += 1
                depth -= 1
                return .array(items)
            }
            while true {
                items.append(try parseValue())
                skipWhitespace()
                let separator = try peek()
                index += 1
                if separator == .closeBracket { break }
                guard separator == .comma else {
                    throw failure(.unexpectedByte(separator), at: index - 1)
                }
                skipWhitespace()
            }
            depth -= 1
            return .array(items)
        }

        mutating func parseObject() throws(JSONParseError) -> JSONValue {
            try enterContainer()
            var members: [JSONMember] = []
            var keys = KeySet()
            skipWhitespace()
            if try peek() == .closeBrace {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                let keyOffset = index
                let opening = try peek()
                guard opening == .quote else { throw failure(.unexpectedByte(opening)) }
                let key = try parseString()
                guard keys.insert(key, among: members) else {
                    throw failure(.duplicateKey(key), at: keyOffset)
                }
                skipWhitespace()
                let colon = try peek()
                guard colon == .colon else { throw failure(.unexpectedByte(colon)) }
                index += 1
                skipWhitespace()
                members.append(JSONMember(key, try parseValue()))
                skipWhitespace()
                let separator = try peek()
                index += 1
                if separator == .closeBrace { break }
                guard separator == .comma else {
                    throw failure(.unexpectedByte(separator), at: index - 1)
                }
                skipWhitespace()
            }
            depth -= 1
            return .object(members)
        }
    }

    /// Finds duplicate keys: a linear scan while an object is small, a hash set once it is not,
    /// so that a body with many thousands of keys cannot make parsing quadratic.
    struct KeySet {
        static let linearLimit = 8
        /// Empty until the object reaches `linearLimit` members, then every key so far.
        var hashed: Set<String> = []

        /// False when `key` is already one of `members`' keys.
        mutating func insert(_ key: String, among members: [JSONMember]) -> Bool {
            if members.count < Self.linearLimit {
                return !members.contains { $0.key == key }
            }
            if hashed.isEmpty {
                hashed = Set(members.lazy.map(\.key))
            }
            return hashed.insert(key).inserted
        }
    }
}
