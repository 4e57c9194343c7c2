/// A JSON value kept as the compact text `JSONWriter` writes for it.
///
/// For values that never change once made, such as a screen's params: they are encoded once,
/// when made, and every answer that shows them copies the text as it is. A `JSONValue` tree of
/// a four-member object costs about 230 bytes in a dozen allocations; its text, about 100 in one.
///
/// The text is valid UTF-8, so it is held as a `String`: texts of up to 15 bytes (`{}`,
/// `{"tab":"all"}`) live inline, with no allocation at all.
public struct JSONText: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let text: String

    /// The text of `value`, as `JSONWriter.write(_:)` writes it.
    public init(_ value: JSONValue) {
        var writer = JSONWriter(capacity: 64)
        writer.write(value)
        text = writer.text
    }

    /// `{}`, short enough to live inline in its string.
    public static let emptyObject = JSONText(writtenBy: "{}")

    /// Text already in the form `JSONWriter` writes (`PlainJSONObject` makes it so).
    init(writtenBy text: String) {
        self.text = text
    }

    /// The text of the one JSON value in `utf8`, checked by a parser with these limits and
    /// written anew, so that texts of equal values are equal however `utf8` spelled them.
    ///
    /// An object of plain scalars, as nearly every screen's params are, is read without a tree
    /// (`PlainJSONObject.objectText`): a restart reads every stored screen's params this way,
    /// and parsing them into a tree to write them again was a fifth of its time.
    public init(parsing utf8: [UInt8], maxDepth: Int = 32, maxStringBytes: Int = 1 << 20) throws(JSONParseError) {
        if maxDepth >= 1,
            let plain = utf8.withUnsafeBufferPointer({ PlainJSONObject.objectText($0, maxStringBytes: maxStringBytes) })
        {
            self = plain
            return
        }
        self.init(try JSONParser(maxDepth: maxDepth, maxStringBytes: maxStringBytes).parse(utf8))
    }

    /// The value the text spells.
    public var value: JSONValue {
        do {
            // Our own writer's output, so no limit is needed: any value it wrote, it can read.
            return try JSONParser(maxDepth: .max, maxStringBytes: .max).parse(Array(text.utf8))
        } catch {
            preconditionFailure("JSONText holds text its writer made, yet it does not parse: \(error)")
        }
    }

    /// True when the text is an object (`{` is its first byte: the writer adds no blanks).
    public var isObject: Bool { text.utf8.first == .openBrace }

    /// The length of the text in bytes.
    public var count: Int { text.utf8.count }

    public var description: String { text }

    /// Calls `body` with the text's bytes, valid only during the call. Inlinable, so that
    /// callers in other modules get it specialised rather than through generic metadata.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
        // Native and small strings always have contiguous UTF-8; this is for completeness only.
        return try Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// Byte for byte: `String`'s own `==` would call texts equal that differ only in Unicode
    /// normalisation, and those are different JSON.
    public static func == (left: JSONText, right: JSONText) -> Bool {
        left.text.utf8.elementsEqual(right.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension JSONWriter {
    /// Writes a value kept as text, copying the text as it is.
    @inlinable
    public mutating func write(_ text: JSONText) {
        startValue()
        text.withUTF8 { append($0) }
    }
}
