import JSON
import Testing

/// `unescapedTextByteCount`, the weight a session's limit counts values by.
@Suite("JSON value size")
struct JSONValueSizeTests {
    @Test("A value with nothing to escape weighs what the writer writes", arguments: 0..<20 as Range<UInt64>)
    func plainValuesWeighTheirText(seed: UInt64) {
        var generator = RandomJSON(seed: seed)
        for _ in 0..<50 {
            let plain = Self.plain(generator.value(depth: 0))
            var writer = JSONWriter()
            writer.write(plain)
            #expect(plain.unescapedTextByteCount == writer.bytes.count)
        }
    }

    @Test("A string weighs its UTF-8 bytes, whatever the writer escapes", arguments: 0..<20 as Range<UInt64>)
    func escapesAreNotCounted(seed: UInt64) {
        var generator = RandomJSON(seed: seed)
        for _ in 0..<50 {
            let value = generator.value(depth: 0)
            #expect(value.unescapedTextByteCount == Self.plain(value).unescapedTextByteCount)
        }
    }

    @Test("Small values weigh their spelling")
    func smallValues() throws {
        #expect(JSONValue.null.unescapedTextByteCount == 4)
        #expect(JSONValue.bool(false).unescapedTextByteCount == 5)
        #expect(JSONValue.string("é\n").unescapedTextByteCount == 5)
        #expect(JSONValue.emptyObject.unescapedTextByteCount == 2)
        #expect(try JSONParser().parse(#"{"a":[1,"b"],"cd":{}}"#).unescapedTextByteCount == 21)
    }

    /// `value` with every string, key or not, replaced by as many bytes of `x`: nothing in it to escape.
    private static func plain(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null, .bool, .number: value
        case .string(let string): .string(Self.xs(string))
        case .array(let items): .array(items.map(plain))
        case .object(let members): .object(members.map { JSONMember(xs($0.key), plain($0.value)) })
        }
    }

    private static func xs(_ string: String) -> String {
        String(repeating: "x", count: string.utf8.count)
    }
}
