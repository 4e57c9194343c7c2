import JSON
import Testing

/// The typed views request decoding relies on.
@Suite("JSON value accessors")
struct JSONValueAccessTests {
    @Test(
        "Only integer spellings that fit Int have an intValue",
        arguments: [
            ("0", 0 as Int?), ("-0", 0), ("42", 42), ("-17", -17),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
            ("9223372036854775808", nil), ("-9223372036854775809", nil),
            ("1.0", nil), ("1e2", nil), ("1E0", nil), ("0.5", nil),
        ]
    )
    func intValue(spelling: String, expected: Int?) {
        #expect(JSONValue.number(spelling).intValue == expected)
    }

    @Test("Accessors answer nil for the other kinds of value")
    func otherKinds() {
        let values: [JSONValue] = [.null, .bool(true), .number("1"), .string("1"), .array([]), .object([])]
        #expect(values.map { $0.intValue != nil } == [false, false, true, false, false, false])
        #expect(values.map { $0.doubleValue != nil } == [false, false, true, false, false, false])
        #expect(values.map { $0.boolValue != nil } == [false, true, false, false, false, false])
        #expect(values.map(\.isNull) == [true, false, false, false, false, false])
        #expect(values.map { $0.arrayValue != nil } == [false, false, false, false, true, false])
        #expect(values.map { $0.objectMembers != nil } == [false, false, false, false, false, true])
    }

    @Test("Accessors return the contents")
    func contents() throws {
        let value = try JSONParser().parse(#"{"flag":false,"ratio":-2.5e-1,"list":[1,null],"inner":{"k":"v"}}"#)
        #expect(value["flag"]?.boolValue == false)
        #expect(value["ratio"]?.doubleValue == -0.25)
        #expect(value["list"]?.arrayValue == [.number("1"), .null])
        #expect(value["inner"]?.objectMembers == [JSONMember("k", .string("v"))])
        #expect(value.objectMembers?.map(\.key) == ["flag", "ratio", "list", "inner"])
    }
}
