
/// Builds compact JSON text straight into a byte buffer, for responses written without `Codable`.
///
/// Commas are placed for the caller: inside an array every value, inside an object every `key(_:)`,
/// gets one when it is not the first. Misnesting (an `endObject()` with nothing open) is a
/// programming error and stops the process.
///
/// It writes into a `ByteBuffer` it owns (so it is noncopyable too), and `bytes` copies the
/// text out once, at the end.
///
/// The small writes (keys, strings, brackets) are inlinable: a session's answer is a few
/// hundred of them, and as calls from another module each cost more than the bytes it wrote.
public struct JSONWriter: ~Copyable {
    @usableFromInline var buffer: ByteBuffer
    /// How many arrays and objects are open.
    @usableFromInline var depth = 0
    /// Whether the innermost open array or object needs a comma before its next element.
    @usableFromInline var needsComma = false
    /// The same for the enclosing ones, innermost in the lowest bit: a stack of bits in a
    /// word, where an array of flags cost a uniqueness and a bounds check at every value.
    /// Levels beyond 64, which only deep values reach, spill into `deeperLevels`.
    @usableFromInline var outerLevels: UInt64 = 0
    @usableFromInline var deeperLevels: [Bool] = []
    /// Set by `key(_:)`: the next value belongs to that key and takes no comma of its own.
    @usableFromInline var afterKey = false

    /// `capacity` is a guess at the output size in bytes, to grow the buffer fewer times.
    public init(capacity: Int = 1024) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Writes into `scratch` while the text fits (`ByteBuffer(scratch:)`): for text read and
    /// dropped before the caller returns. The writer must not outlive `scratch`.
    public init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        buffer = ByteBuffer(scratch: scratch)
    }

    /// Reopens a complete JSON object, `object`, to add members to it; `endObject()` closes it again.
    public init(continuing object: [UInt8]) {
        precondition(object.last == .closeBrace, "JSONWriter(continuing:) needs a JSON object")
        self.init(capacity: object.count + 256)
        object.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0.dropLast())) }
        // `{}` has no member yet; anything longer has, so the next key takes a comma.
        depth = 1
        needsComma = object.count > 2
    }

    /// The buffer's parts, as the writes below use them.
    @usableFromInline var storage: UnsafeMutablePointer<UInt8> { buffer.storage }
    @usableFromInline var capacity: Int { buffer.capacity }
    @usableFromInline var count: Int {
        @inline(__always) get { buffer.count }
        @inline(__always) set { buffer.count = newValue }
    }

    /// How many bytes are written so far: the offset the next byte goes to.
    public var written: Int { count }

    /// The JSON text written so far; take it when done.
    public var bytes: [UInt8] { buffer.bytes }

    /// Calls `body` with the text written so far, valid only during the call: for a caller that
    /// assembles it with other bytes, without `bytes`' copy.
    @inlinable
    public func withWrittenBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try buffer.withBytes(body)
    }

    /// The same text as a `String` (it is valid UTF-8): one copy, none for 15 bytes or fewer.
    public var text: String {
        String(unsafeUninitializedCapacity: count) { buffer in
            _ = buffer.initialize(from: UnsafeBufferPointer(start: storage, count: count))
            return count
        }
    }

    @inlinable @inline(__always)
    mutating func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    @inlinable @inline(__always)
    mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        buffer.append(run)
    }

    @inlinable @inline(__always)
    mutating func grow(toHold needed: Int) {
        buffer.grow(toHold: needed)
    }

    /// Writes any value; `.number` goes out as its stored spelling, which the parser checked.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let bool): writeBool(bool)
        case .number(let spelling):
            startValue()
            var spelling = spelling
            spelling.withUTF8 { append($0) }
        case .string(let string): writeString(string)
        case .array(let items):
            beginArray()
            for item in items { write(item) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(escaping: member.key)
                write(member.value)
            }
            endObject()
        }
    }

    @inlinable @inline(__always)
    public mutating func writeString(_ string: String) {
        startValue()
        appendQuoted(string)
    }

    /// A string given as its UTF-8 bytes (valid UTF-8, as a `String`'s are).
    public mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        startValue()
        appendQuoted(utf8)
    }

    /// Copies `json` as it is, as the next bytes: the caller keeps the text well formed (it
    /// splices bytes this writer, or another, wrote). The writer's own count of open objects,
    /// arrays and commas does not see them.
    public mutating func appendVerbatim(_ json: UnsafeBufferPointer<UInt8>) {
        append(json)
    }

    public mutating func writeInt(_ value: Int) {
        startValue()
        if value < 0 { append(.minus) }
        // Digits come out least significant first: fill a stack buffer from its end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var rest = value.magnitude
            repeat {
                start -= 1
                digits[start] = .digitZero + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes `units` divided by 10^`fractionDigits` as a decimal with exactly that many
    /// digits after the point (1234 with 3 is `1.234`, 5 with 3 is `0.005`): a duration in
    /// milliseconds from whole microseconds, with no `String(format:)` and no floating point.
    public mutating func writeDecimal(_ units: Int, fractionDigits: Int) {
        precondition((0...18).contains(fractionDigits), "fractionDigits must be 0 to 18")
        guard fractionDigits > 0 else { return writeInt(units) }
        startValue()
        if units < 0 { append(.minus) }
        // As `writeInt`: digits from the end of a stack buffer, the point placed among them,
        // and zeros before the first significant digit up to the one before the point.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
            var start = digits.count
            var rest = units.magnitude
            var written = 0
            repeat {
                if written == fractionDigits {
                    start -= 1
                    digits[start] = UInt8(ascii: ".")
                }
                start -= 1
                digits[start] = .digitZero + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                written += 1
            } while rest > 0 || written <= fractionDigits
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    @inlinable @inline(__always)
    public mutating func writeBool(_ value: Bool) {
        startValue()
        appendLiteral(value ? "true" : "false")
    }

    @inlinable @inline(__always)
    public mutating func writeNull() {
        startValue()
        appendLiteral("null")
    }

    /// Copies a literal that needs no escaping, such as `null`.
    @inlinable @inline(__always)
    mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    @inlinable @inline(__always)
    public mutating func beginObject() {
        startValue()
        append(.openBrace)
        open()
    }

    /// Writes the key of the next member, a literal that needs no escaping (all of ours); the
    /// value written next belongs to it. Other names go through `key(escaping:)`.
    ///
    /// Keys are most of what a session's JSON is made of, so a literal's bytes are copied as
    /// they are, with its quotes and colon, and checked only in debug builds.
    @inlinable @inline(__always)
    public mutating func key(_ name: StaticString) {
        startValue()
        // A string literal is always held as a pointer to its UTF-8 (`utf8Start` checks it).
        let length = name.utf8CodeUnitCount
        let source = name.utf8Start
        assert(
            UnsafeBufferPointer(start: source, count: length).allSatisfy {
                $0 >= 0x20 && $0 < 0x80 && $0 != .quote && $0 != .backslash
            }, "JSONWriter.key(_:) takes a literal that needs no escaping; use key(escaping:)")
        let needed = length + 3
        if count + needed > capacity { grow(toHold: count + needed) }
        let out = storage + count
        out[0] = .quote
        // A loop, not memcpy: keys are a few bytes, fewer than a call to it costs.
        for index in 0..<length { out[index + 1] = source[index] }
        out[length + 1] = .quote
        out[length + 2] = .colon
        count += needed
        afterKey = true
    }

    /// Writes a key that is not a literal, escaping it as needed; the value written next belongs to it.
    ///
    /// Labelled so that a literal never lands here: with both as `key(_:)`, Swift picks `String`,
    /// a literal's default type, and every literal key was scanned for escapes after all.
    public mutating func key(escaping name: String) {
        startValue()
        appendQuoted(name)
        append(.colon)
        afterKey = true
    }

    @inlinable @inline(__always)
    public mutating func endObject() {
        precondition(depth > 0, "JSONWriter.endObject() without an open object")
        close()
        append(.closeBrace)
    }

    @inlinable @inline(__always)
    public mutating func beginArray() {
        startValue()
        append(.openBracket)
        open()
    }

    @inlinable @inline(__always)
    public mutating func endArray() {
        precondition(depth > 0, "JSONWriter.endArray() without an open array")
        close()
        append(.closeBracket)
    }

    /// Enters a new array or object, keeping the enclosing one's comma flag.
    @inlinable @inline(__always)
    mutating func open() {
        if depth >= 64 { deeperLevels.append(outerLevels >> 63 != 0) }
        outerLevels = outerLevels << 1 | (needsComma ? 1 : 0)
        needsComma = false
        depth += 1
    }

    /// Leaves the innermost array or object: the enclosing one's comma flag is current again.
    @inlinable @inline(__always)
    mutating func close() {
        needsComma = outerLevels & 1 != 0
        outerLevels >>= 1
        if depth > 64, let spilled = deeperLevels.popLast() { outerLevels |= (spilled ? 1 : 0) << 63 }
        depth -= 1
    }

    /// Writes the comma that separates this element from the previous one, if there is one.
    @inlinable @inline(__always)
    mutating func startValue() {
        if afterKey {
            afterKey = false
        } else if depth > 0 {
            if needsComma { append(.comma) } else { needsComma = true }
        }
    }
}
