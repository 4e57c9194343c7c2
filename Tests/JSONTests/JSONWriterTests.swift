import JSON
import Testing

/// The JSON text the writer produces, byte for byte.
@Suite("JSON writer")
struct JSONWriterTests {
    private func text(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test(
        "Strings are escaped where JSON or JavaScript needs it, and nowhere else",
        arguments: [
            ("", "\"\""),
            ("plain", "\"plain\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("a\\b", "\"a\\\\b\""),
            ("\n\r\t\u{8}\u{C}", "\"\\n\\r\\t\\b\\f\""),
            ("\u{0}\u{1}\u{1B}\u{1F}", "\"\\u0000\\u0001\\u001b\\u001f\""),
            ("\u{7F} /", "\"\u{7F} /\""),
            ("é€😀日本", "\"é€😀日本\""),
            ("a\u{2028}b\u{2029}", "\"a\\u2028b\\u2029\""),
            ("\u{2027}\u{202A}\u{20AC}\u{2000}", "\"\u{2027}\u{202A}\u{20AC}\u{2000}\""),
            ("\u{2028}", "\"\\u2028\""),
            ("\u{2028}\u{2028}", "\"\\u2028\\u2028\""),
        ]
    )
    func escapesStrings(string: String, expected: String) {
        #expect(text { $0.writeString(string) } == expected)
    }

    @Test(
        "Integers are written in full, including the extremes",
        arguments: [0, 7, -1, 42, -1_000_000, Int.max, Int.min]
    )
    func writesIntegers(value: Int) {
        #expect(text { $0.writeInt(value) } == String(value))
    }

    @Test(
        "Fixed-point decimals keep every fraction digit and a zero before the point",
        arguments: [
            (1234, 3, "1.234"), (5, 3, "0.005"), (0, 3, "0.000"), (1000, 3, "1.000"), (-1500, 3, "-1.500"),
            (-7, 2, "-0.07"), (42, 0, "42"), (Int.max, 18, "9.223372036854775807"),
            (Int.min, 3, "-9223372036854775.808"),
        ]
    )
    func writesDecimals(units: Int, fractionDigits: Int, expected: String) {
        #expect(text { $0.writeDecimal(units, fractionDigits: fractionDigits) } == expected)
    }

    @Test("A decimal in an object is a value like any other")
    func decimalInObject() {
        let output = text { writer in
            writer.beginObject()
            writer.key("duration_ms")
            writer.writeDecimal(250, fractionDigits: 3)
            writer.key("status")
            writer.writeInt(200)
            writer.endObject()
        }
        #expect(output == #"{"duration_ms":0.250,"status":200}"#)
    }

    @Test("Scalars are written as their literals")
    func writesScalars() {
        #expect(text { $0.writeBool(true) } == "true")
        #expect(text { $0.writeBool(false) } == "false")
        #expect(text { $0.writeNull() } == "null")
        #expect(text { $0.write(.number("-1.50e+3")) } == "-1.50e+3")
    }

    @Test("The building API places commas and colons, with no spaces")
    func buildsNestedDocument() {
        let output = text { writer in
            writer.beginObject()
            writer.key("id")
            writer.writeString("s-1")
            writer.key("count")
            writer.writeInt(2)
            writer.key(escaping: "dynamic \"key\"")
            writer.beginArray()
            writer.writeBool(true)
            writer.writeNull()
            writer.beginObject()
            writer.endObject()
            writer.beginArray()
            writer.endArray()
            writer.write(.object([JSONMember("x", .array([.number("1"), .string("y")]))]))
            writer.endArray()
            writer.key("last")
            writer.beginObject()
            writer.key("a")
            writer.writeInt(-1)
            writer.endObject()
            writer.endObject()
        }
        #expect(output == #"{"id":"s-1","count":2,"dynamic \"key\"":[true,null,{},[],{"x":[1,"y"]}],"last":{"a":-1}}"#)
    }

    @Test("Keys that are not literals are escaped like any other string")
    func escapesDynamicKeys() {
        let output = text { writer in
            writer.beginObject()
            writer.key(escaping: "quote\"d\u{2028}")
            writer.writeNull()
            writer.key("plain")
            writer.writeNull()
            writer.endObject()
        }
        #expect(output == #"{"quote\"d\u2028":null,"plain":null}"#)
    }

    @Test(
        "Values are written compactly, members in order",
        arguments: [
            (JSONValue.null, "null"),
            (.array([]), "[]"),
            (.object([]), "{}"),
            (.array([.array([]), .array([.null])]), "[[],[null]]"),
            (.object([JSONMember("b", .bool(false)), JSONMember("a", .number("0"))]), #"{"b":false,"a":0}"#),
            (.object([JSONMember("", .object([JSONMember("", .string(""))]))]), #"{"":{"":""}}"#),
        ]
    )
    func writesValues(value: JSONValue, expected: String) {
        #expect(text { $0.write(value) } == expected)
    }

    @Test("A large document is written completely")
    func writesLargeDocument() throws {
        let item = JSONValue.object([JSONMember("n", .number("1")), JSONMember("s", .string("é\n"))])
        let value = JSONValue.array(Array(repeating: item, count: 20_000))
        var writer = JSONWriter(capacity: 16)
        writer.write(value)
        #expect(writer.bytes.count == 2 + 20_000 * #"{"n":1,"s":"é\n"}"#.utf8.count + 19_999)
        #expect(try JSONParser().parse(writer.bytes) == value)
    }

    /// Every byte that needs an escape, at every place in strings long enough to be read eight
    /// bytes at a time, and at every offset from such a word's start: the fast path must never
    /// pass one over.
    @Test("Escapes are found wherever they fall in a string read a word at a time")
    func escapesAtEveryPosition() {
        let specials: [(Character, String)] =
            (0..<0x20).map { code in
                let short: [Int: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
                let hex = String(code, radix: 16)
                return (Character(Unicode.Scalar(UInt8(code))), short[code] ?? #"\u00"# + (hex.count == 1 ? "0" : "") + hex)
            } + [("\"", #"\""#), ("\\", #"\\"#), ("\u{2028}", #"\u2028"#), ("\u{2029}", #"\u2029"#)]
            + [("\u{80}", #"\u0080"#), ("\u{85}", #"\u0085"#), ("\u{9B}", #"\u009b"#), ("\u{9F}", #"\u009f"#)]
        for length in [8, 9, 15, 16, 17, 24] {
            for position in 0..<length {
                for (special, escaped) in specials {
                    var characters = Array(repeating: Character("a"), count: length)
                    characters[position] = special
                    let expected = "\"" + String(repeating: "a", count: position) + escaped
                        + String(repeating: "a", count: length - position - 1) + "\""
                    let written = text { $0.writeString(String(characters)) }
                    #expect(written == expected, "\(escaped) at \(position) of \(length)")
                }
            }
        }
        // Text above ASCII that needs no escape comes out as it went in, whatever its length.
        for length in 1...20 {
            let plain = String(repeating: "é→a\u{A0}£", count: length)
            #expect(text { $0.writeString(plain) } == "\"" + plain + "\"")
        }
    }

    @Test("Commas and nesting stay right beyond 64 levels deep")
    func deepNesting() throws {
        var value = JSONValue.array([.number("1"), .number("2")])
        for level in 0..<150 {
            value = level % 2 == 0 ? .array([value, .number("3")]) : .object([JSONMember("k", value), JSONMember("x", .null)])
        }
        var writer = JSONWriter()
        writer.write(value)
        #expect(try JSONParser(maxDepth: 200).parse(writer.bytes) == value)
        var expected = "[1,2]"
        for level in 0..<150 { expected = level % 2 == 0 ? "[\(expected),3]" : #"{"k":\#(expected),"x":null}"# }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }
}

/// A writer started in the caller's scratch memory writes the same text, and moves to memory of
/// its own, keeping what it wrote, once the scratch is full.
@Suite("JSON writer in scratch memory")
struct JSONWriterScratchTests {
    @Test("Text that fits stays in the scratch; longer text moves out whole", arguments: [1, 16, 64, 512])
    func writesPastTheScratch(size: Int) {
        let names = (0..<40).map { "screen-\($0)" }
        var whole = JSONWriter()
        whole.writeStrings(names)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { scratch in
            scratch.initialize(repeating: 0)
            var writer = JSONWriter(scratch: scratch)
            writer.writeStrings(names)
            #expect(writer.bytes == whole.bytes)
            // The text is longer than 64 bytes: smaller scratch was left, larger was written in.
            let inScratch = writer.withWrittenBytes { $0.baseAddress == UnsafePointer(scratch.baseAddress) }
            #expect(inScratch == (size >= whole.written))
        }
    }
}

extension JSONWriter {
    fileprivate mutating func writeStrings(_ strings: [String]) {
        beginArray()
        for string in strings { writeString(string) }
        endArray()
    }
}
