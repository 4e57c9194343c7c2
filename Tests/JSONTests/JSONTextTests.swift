import JSON
import Testing

@Suite("JSON kept as text")
struct JSONTextTests {
    static let values: [JSONValue] = [
        .emptyObject,
        .object([JSONMember("itemId", .string("100042")), JSONMember("n", .number("1.50e3"))]),
        .object([JSONMember("nested", .array([.bool(true), .null, .string("Zoë \"q\"\n\u{2028}")]))]),
        .array([]),
        .string(String(repeating: "x", count: 300)),
    ]

    @Test("The text is what the writer writes, and reads back as the same value", arguments: values)
    func roundTrip(value: JSONValue) {
        var writer = JSONWriter()
        writer.write(value)
        let text = JSONText(value)
        #expect(Array(text.description.utf8) == writer.bytes)
        #expect(text.count == writer.bytes.count)
        #expect(text.value == value)
        #expect(text.withUTF8 { Array($0) } == writer.bytes)
    }

    @Test("Written into a document, the text takes its place like any value")
    func writtenInPlace() {
        let params = JSONText(.object([JSONMember("a", .number("1"))]))
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("first")
        writer.write(params)
        writer.key("list")
        writer.beginArray()
        writer.write(params)
        writer.write(JSONText(.emptyObject))
        writer.endArray()
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"first":{"a":1},"list":[{"a":1},{}]}"#)
    }

    @Test("Parsing checks the text and writes it anew: blanks go, escapes are the writer's")
    func parsing() throws {
        let text = try JSONText(parsing: Array(#" { "b" : [ 1 , "\u0041\/" ] } "#.utf8))
        #expect(text.description == #"{"b":[1,"A/"]}"#)
        #expect(text == JSONText(.object([JSONMember("b", .array([.number("1"), .string("A/")]))])))
        #expect(throws: JSONParseError.self) { try JSONText(parsing: Array(#"{"a":1,"a":2}"#.utf8)) }
        #expect(throws: JSONParseError.self) { try JSONText(parsing: Array("[[[1]]]".utf8), maxDepth: 2) }
        #expect(throws: JSONParseError.self) { try JSONText(parsing: [0x7B]) }
    }

    @Test("Texts are equal byte for byte: Unicode-equivalent strings that differ in bytes are different JSON")
    func byteEquality() {
        let composed = JSONText(.string("\u{E9}"))
        let decomposed = JSONText(.string("e\u{301}"))
        #expect(composed != decomposed)
        #expect(composed == JSONText(.string("\u{E9}")))
        #expect(Set([composed, decomposed, JSONText(.string("\u{E9}"))]).count == 2)
    }

    @Test("Only a text that starts an object is an object")
    func objects() {
        #expect(JSONText(.emptyObject).isObject)
        #expect(!JSONText(.array([])).isObject)
        #expect(!JSONText(.string("{")).isObject)
    }
}
