import JSON
import Testing

/// `heldBytes`, the weight a session's limit counts parsed values by.
@Suite("JSON value size")
struct JSONValueSizeTests {
    @Test("A value weighs at least its JSON text unescaped, whatever the writer escapes", arguments: 0..<20 as Range<UInt64>)
    func neverLighterThanText(seed: UInt64) {
        var generator = RandomJSON(seed: seed)
        for _ in 0..<50 {
            let value = generator.value(depth: 0)
            let plain = Self.plain(value)
            var writer = JSONWriter()
            writer.write(plain)
            #expect(value.heldBytes >= writer.bytes.count)
            #expect(value.heldBytes == plain.heldBytes)
        }
    }

    @Test("Small values weigh their slot, long strings their heap block too, containers each item")
    func smallValues() throws {
        #expect(JSONValue.null.heldBytes == 24)
        #expect(JSONValue.bool(false).heldBytes == 24)
        #expect(JSONValue.number("-12.5").heldBytes == 29)
        #expect(JSONValue.string("é\n").heldBytes == 27)
        #expect(JSONValue.string(String(repeating: "s", count: 16)).heldBytes == 24 + 32 + 16)
        #expect(JSONValue.emptyObject.heldBytes == 56)
        // 56 for the object; "a": 16 + 1, and its array 56 + (24 + 1) + (24 + 1); "cd": 16 + 2, and {} 56.
        #expect(try JSONParser().parse(#"{"a":[1,"b"],"cd":{}}"#).heldBytes == 56 + 17 + 106 + 18 + 56)
    }

    @Test("Dense values weigh many times their text: an array of digits, 25 bytes an item")
    func denseValues() {
        let digits = JSONValue.array(Array(repeating: .number("1"), count: 1_000))
        #expect(digits.heldBytes == 56 + 25_000)
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
