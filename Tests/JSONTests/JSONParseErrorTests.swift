import JSON
import Testing

/// The messages that reach a client in a problem response.
@Suite("JSON parse error messages")
struct JSONParseErrorTests {
    @Test(
        "Each reason reads as a sentence with its byte offset",
        arguments: [
            (JSONParseError.Reason.unexpectedEnd, 7, "unexpected end of input at byte 7"),
            (.unexpectedByte(0x2C), 3, "unexpected character ',' at byte 3"),
            (.unexpectedByte(0x0B), 0, "unexpected byte 0x0B at byte 0"),
            (.unexpectedByte(0xEF), 0, "unexpected byte 0xEF at byte 0"),
            (.unexpectedByte(0x20), 1, "unexpected byte 0x20 at byte 1"),
            (.invalidUTF8, 5, "invalid UTF-8 at byte 5"),
            (.invalidEscape, 2, "invalid escape sequence at byte 2"),
            (.controlCharacterInString, 4, "unescaped control character in a string at byte 4"),
            (.invalidNumber, 1, "invalid number at byte 1"),
            (.numberOutOfRange, 0, "number out of range at byte 0"),
            (.duplicateKey("a"), 12, "duplicate key \"a\" at byte 12"),
            (.tooDeep(limit: 32), 32, "nesting deeper than 32 levels at byte 32"),
            (.stringTooLong(limit: 1024), 9, "string longer than 1024 bytes at byte 9"),
            (.trailingData, 2, "data after the JSON value at byte 2"),
        ]
    )
    func readsAsSentence(reason: JSONParseError.Reason, offset: Int, message: String) {
        let error = JSONParseError(offset: offset, reason: reason)
        #expect(error.message == message)
        #expect(error.description == message)
    }

    @Test("A long duplicate key is shortened in the message")
    func shortensLongKeys() {
        let key = String(repeating: "k", count: 1_000)
        let message = JSONParseError(offset: 1, reason: .duplicateKey(key)).message
        #expect(message == "duplicate key \"" + String(repeating: "k", count: 40) + "…\" at byte 1")
    }

    @Test("The parser's errors carry the message the brief promises")
    func parserErrorMessage() {
        do throws(JSONParseError) {
            _ = try JSONParser().parse("{\"a\":1,\"a\":2}")
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.message == "duplicate key \"a\" at byte 7")
        }
    }
}
