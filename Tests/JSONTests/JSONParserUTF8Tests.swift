import JSON
import Testing

/// UTF-8 checks need raw bytes that no Swift `String` can hold, so these tables are byte arrays.
@Suite("JSON parser: UTF-8")
struct JSONParserUTF8Tests {
    let parser = JSONParser()

    /// `bytes` between double quotes, as one JSON string.
    private static func quoted(_ bytes: [UInt8]) -> [UInt8] { [0x22] + bytes + [0x22] }

    @Test(
        "Ill-formed UTF-8 in a string is refused at the sequence's first byte",
        arguments: [
            ([0x80], 1),  // a continuation byte on its own
            ([0xBF], 1),
            ([0x61, 0xC0, 0xAF], 2),  // overlong "/"
            ([0xC1, 0xBF], 1),  // overlong U+007F
            ([0xE0, 0x80, 0xAF], 1),  // overlong in three bytes
            ([0xE0, 0x9F, 0xBF], 1),  // overlong U+07FF
            ([0xF0, 0x80, 0x80, 0xAF], 1),  // overlong in four bytes
            ([0xF0, 0x8F, 0xBF, 0xBF], 1),  // overlong U+FFFF
            ([0xED, 0xA0, 0x80], 1),  // U+D800, a surrogate encoded as if a scalar
            ([0xED, 0xBF, 0xBF], 1),  // U+DFFF
            ([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], 1),  // a surrogate pair in CESU-8
            ([0xF4, 0x90, 0x80, 0x80], 1),  // U+110000
            ([0xF5, 0x80, 0x80, 0x80], 1),
            ([0xF8, 0x88, 0x80, 0x80, 0x80], 1),  // the old five-byte form
            ([0xFE], 1),
            ([0xFF], 1),
            ([0xC3], 1),  // cut short by the closing quote
            ([0x61, 0xE2, 0x82], 2),
            ([0xF0, 0x9F, 0x98], 1),
            ([0xE2, 0x82, 0x41], 1),  // a continuation replaced by ASCII
            ([0xC3, 0xA9, 0xC3, 0xC3, 0xA9], 3),
        ] as [([UInt8], Int)]
    )
    func refusesIllFormedUTF8(content: [UInt8], offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .invalidUTF8)) {
            try parser.parse(Self.quoted(content))
        }
    }

    @Test("Ill-formed UTF-8 in a key is refused too")
    func refusesIllFormedKey() {
        let text: [UInt8] = [0x7B, 0x22, 0xC0, 0x80, 0x22, 0x3A, 0x31, 0x7D]
        #expect(throws: JSONParseError(offset: 2, reason: .invalidUTF8)) { try parser.parse(text) }
    }

    @Test("A sequence cut short by the end of input is an unexpected end")
    func refusesTruncatedAtEnd() {
        #expect(throws: JSONParseError(offset: 3, reason: .unexpectedEnd)) { try parser.parse([0x22, 0xE2, 0x82]) }
        #expect(throws: JSONParseError(offset: 2, reason: .unexpectedEnd)) { try parser.parse([0x22, 0xF0]) }
    }

    @Test(
        "Non-ASCII bytes outside strings are unexpected",
        arguments: [
            ([0xFF], 0), ([0xC3, 0xA9], 0), ([0x5B, 0xC3, 0xA9, 0x5D], 1), ([0x31, 0x20, 0x80], 2),
        ] as [([UInt8], Int)]
    )
    func refusesNonASCIIOutsideStrings(text: [UInt8], offset: Int) {
        let reason: JSONParseError.Reason = offset == 2 ? .trailingData : .unexpectedByte(text[offset])
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try parser.parse(text) }
    }

    @Test(
        "Well-formed UTF-8 at the edges of each range is accepted",
        arguments: [
            ([0xC2, 0x80], "\u{80}"),
            ([0xDF, 0xBF], "\u{7FF}"),
            ([0xE0, 0xA0, 0x80], "\u{800}"),
            ([0xEC, 0xBF, 0xBF], "\u{CFFF}"),
            ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
            ([0xEE, 0x80, 0x80], "\u{E000}"),
            ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
            ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
            ([0xF3, 0xBF, 0xBF, 0xBF], "\u{FFFFF}"),
            ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
            ([0xEF, 0xBB, 0xBF], "\u{FEFF}"),
        ] as [([UInt8], String)]
    )
    func acceptsWellFormedEdges(content: [UInt8], expected: String) throws {
        #expect(try parser.parse(Self.quoted(content)) == .string(expected))
        #expect(try parser.parse(Self.quoted([0x5C, 0x6E] + content + [0x41])) == .string("\n" + expected + "A"))
    }
}
