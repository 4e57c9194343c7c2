import JSON
import Testing

/// Every kind of text the parser refuses, with the reason and the byte it points at.
@Suite("JSON parser: refused texts")
struct JSONParserRefusalTests {
    let parser = JSONParser()

    private static func byte(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }

    @Test(
        "Structural mistakes are refused at the byte at fault",
        arguments: [
            ("", JSONParseError.Reason.unexpectedEnd, 0),
            ("   ", .unexpectedEnd, 3),
            ("[", .unexpectedEnd, 1),
            ("[1,2", .unexpectedEnd, 4),
            ("[1,", .unexpectedEnd, 3),
            ("{", .unexpectedEnd, 1),
            ("{\"a\"", .unexpectedEnd, 4),
            ("{\"a\":", .unexpectedEnd, 5),
            ("{\"a\":1", .unexpectedEnd, 6),
            ("]", .unexpectedByte(byte("]")), 0),
            ("}", .unexpectedByte(byte("}")), 0),
            ("[1,]", .unexpectedByte(byte("]")), 3),
            ("[1,,2]", .unexpectedByte(byte(",")), 3),
            ("[,1]", .unexpectedByte(byte(",")), 1),
            ("[1 2]", .unexpectedByte(byte("2")), 3),
            ("[1:2]", .unexpectedByte(byte(":")), 2),
            ("{\"a\":1,}", .unexpectedByte(byte("}")), 7),
            ("{,}", .unexpectedByte(byte(",")), 1),
            ("{\"a\" 1}", .unexpectedByte(byte("1")), 5),
            ("{\"a\":}", .unexpectedByte(byte("}")), 5),
            ("{\"a\":1 \"b\":2}", .unexpectedByte(byte("\"")), 7),
            ("{\"a\",1}", .unexpectedByte(byte(",")), 4),
            ("{a:1}", .unexpectedByte(byte("a")), 1),
            ("{1:1}", .unexpectedByte(byte("1")), 1),
            ("{'a':1}", .unexpectedByte(byte("'")), 1),
            ("['a']", .unexpectedByte(byte("'")), 1),
            ("/* c */ 1", .unexpectedByte(byte("/")), 0),
            ("[1, // c\n2]", .unexpectedByte(byte("/")), 4),
            ("# c\n1", .unexpectedByte(byte("#")), 0),
            ("undefined", .unexpectedByte(byte("u")), 0),
            ("True", .unexpectedByte(byte("T")), 0),
            ("trUe", .unexpectedByte(byte("U")), 2),
            ("nul", .unexpectedEnd, 3),
            ("fals", .unexpectedEnd, 4),
            ("[nulx]", .unexpectedByte(byte("x")), 4),
            ("[truex]", .unexpectedByte(byte("x")), 5),
            ("\u{0B}1", .unexpectedByte(0x0B), 0),
            ("\u{0C}1", .unexpectedByte(0x0C), 0),
            ("\u{A0}1", .unexpectedByte(0xC2), 0),
            ("\u{FEFF}1", .unexpectedByte(0xEF), 0),
        ]
    )
    func refusesStructuralMistakes(text: String, reason: JSONParseError.Reason, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try parser.parse(text) }
    }

    @Test(
        "Anything after the one value is refused",
        arguments: [
            ("1 2", 2), ("[1] // c", 4), ("{}{}", 2), ("[][]", 2), ("null,", 4), ("\"a\"\"b\"", 3),
            ("1\u{0}", 1), ("0x10", 1), ("truex", 4), ("1 \n x", 4),
        ]
    )
    func refusesTrailingData(text: String, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .trailingData)) { try parser.parse(text) }
    }

    @Test(
        "Numbers outside the grammar are refused",
        arguments: [
            ("NaN", JSONParseError.Reason.unexpectedByte(byte("N")), 0),
            ("Infinity", .unexpectedByte(byte("I")), 0),
            ("-Infinity", .invalidNumber, 1),
            ("[-NaN]", .invalidNumber, 2),
            ("+1", .unexpectedByte(byte("+")), 0),
            (".5", .unexpectedByte(byte(".")), 0),
            ("01", .invalidNumber, 1),
            ("-01", .invalidNumber, 2),
            ("[00]", .invalidNumber, 2),
            ("[-]", .invalidNumber, 2),
            ("-", .unexpectedEnd, 1),
            ("- 1", .invalidNumber, 1),
            ("1.", .unexpectedEnd, 2),
            ("[1.]", .invalidNumber, 3),
            ("1.e3", .invalidNumber, 2),
            ("1e", .unexpectedEnd, 2),
            ("1e+", .unexpectedEnd, 3),
            ("[1e+]", .invalidNumber, 4),
            ("[1E-x]", .invalidNumber, 4),
            ("[1ee2]", .invalidNumber, 3),
            ("[1.2.3]", .unexpectedByte(byte(".")), 4),
            ("[0x10]", .unexpectedByte(byte("x")), 2),
            ("[1_000]", .unexpectedByte(byte("_")), 2),
        ]
    )
    func refusesInvalidNumbers(text: String, reason: JSONParseError.Reason, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try parser.parse(text) }
    }

    @Test(
        "Numbers beyond a finite Double are out of range",
        arguments: [
            ("1e999", 0), ("-1e999", 0), ("[1.8e308]", 1), ("{\"a\":123E400}", 5),
            ("1" + String(repeating: "0", count: 309), 0), ("[-" + String(repeating: "9", count: 400) + ".5]", 1),
        ]
    )
    func refusesNumbersOutOfRange(text: String, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .numberOutOfRange)) { try parser.parse(text) }
    }

    @Test(
        "Bad strings are refused",
        arguments: [
            ("\"abc", JSONParseError.Reason.unexpectedEnd, 4),
            ("\"a\tb\"", .controlCharacterInString, 2),
            ("\"a\nb\"", .controlCharacterInString, 2),
            ("\"\u{0}\"", .controlCharacterInString, 1),
            ("\"\u{1F}\"", .controlCharacterInString, 1),
            ("{\"a\rb\":1}", .controlCharacterInString, 3),
            ("\"\\x\"", .invalidEscape, 1),
            ("\"\\'\"", .invalidEscape, 1),
            ("\"\\U0041\"", .invalidEscape, 1),
            ("\"ab\\0\"", .invalidEscape, 3),
            ("\"\\u12\"", .invalidEscape, 1),
            ("\"\\u12G4\"", .invalidEscape, 1),
            ("\"\\u 123\"", .invalidEscape, 1),
            ("\"\\", .unexpectedEnd, 2),
            ("\"\\u00", .unexpectedEnd, 5),
            ("'a'", .unexpectedByte(byte("'")), 0),
        ]
    )
    func refusesBadStrings(text: String, reason: JSONParseError.Reason, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try parser.parse(text) }
    }

    @Test(
        "A lone surrogate escape is refused at its backslash",
        arguments: [
            ("\"\\uD800\"", 1), ("\"\\uDC00\"", 1), ("\"\\uDFFF\"", 1), ("\"ab\\uDBFF\"", 3),
            ("\"\\uD800\\u0041\"", 1), ("\"\\uD800\\n\"", 1), ("\"\\uD83D\\uD83D\"", 1), ("\"\\uDE00\\uD83D\"", 1),
            ("\"\\uD800x\"", 1), ("{\"\\uD800\":1}", 2),
        ]
    )
    func refusesLoneSurrogates(text: String, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .invalidEscape)) { try parser.parse(text) }
    }

    @Test("A high surrogate cut off by the end of input is an unexpected end")
    func refusesTruncatedSurrogatePair() {
        #expect(throws: JSONParseError(offset: 7, reason: .unexpectedEnd)) { try parser.parse("\"\\uD83D") }
        #expect(throws: JSONParseError(offset: 8, reason: .unexpectedEnd)) { try parser.parse("\"\\uD83D\\") }
        #expect(throws: JSONParseError(offset: 11, reason: .unexpectedEnd)) { try parser.parse("\"\\uD83D\\uDE") }
    }

    @Test(
        "A key repeated in one object is refused at the repeat",
        arguments: [
            ("{\"a\":1,\"a\":2}", "a", 7),
            ("{\"a\":1,\"b\":2,\"a\":3}", "a", 13),
            ("{\"\\u0061\":1,\"a\":2}", "a", 12),
            ("{\"é\":1,\"\\u00e9\":2}", "é", 8),
            ("{\"\":1,\"\":2}", "", 6),
            ("[{\"x\":{\"k\":null,\"k\":null}}]", "k", 16),
        ]
    )
    func refusesDuplicateKeys(text: String, key: String, offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .duplicateKey(key))) { try parser.parse(text) }
    }

    @Test("A duplicate is found however many keys come before it", arguments: 1...12)
    func refusesDuplicatesAtAnyPosition(count: Int) {
        let members = (0..<count).map { "\"k\($0)\":0" }.joined(separator: ",")
        #expect(throws: Never.self) { try parser.parse("{\(members)}") }
        for repeated in 0..<count {
            let text = "{\(members),\"k\(repeated)\":1}"
            let offset = 1 + members.utf8.count + 1
            #expect(throws: JSONParseError(offset: offset, reason: .duplicateKey("k\(repeated)"))) {
                try parser.parse(text)
            }
        }
    }

    @Test("Nesting one level past the limit is refused at the opening bracket", arguments: [0, 1, 2, 32])
    func refusesNestingPastLimit(limit: Int) {
        let parser = JSONParser(maxDepth: limit)
        let arrays = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let objects = String(repeating: "{\"a\":", count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: JSONParseError(offset: limit, reason: .tooDeep(limit: limit))) { try parser.parse(arrays) }
        #expect(throws: JSONParseError(offset: limit * 5, reason: .tooDeep(limit: limit))) {
            try parser.parse(objects)
        }
    }

    @Test("A very deep text is refused without recursing through all of it")
    func refusesHugeNesting() {
        let text = String(repeating: "[", count: 1_000_000)
        #expect(throws: JSONParseError(offset: 32, reason: .tooDeep(limit: 32))) { try parser.parse(text) }
    }

    @Test(
        "Strings past the length limit are refused at their opening quote",
        arguments: [
            ("\"abcde\"", 0), ("\"ééé\"", 0), ("\"\\u0041\\u0042\\u0043\\u0044\\u0045\"", 0), ("\"abc😀\"", 0),
            ("[\"ok\",\"toolong\"]", 6), ("{\"abcde\":1}", 1), ("{\"a\":\"abcd\\n\"}", 5),
        ]
    )
    func refusesLongStrings(text: String, offset: Int) {
        let parser = JSONParser(maxStringBytes: 4)
        #expect(throws: JSONParseError(offset: offset, reason: .stringTooLong(limit: 4))) { try parser.parse(text) }
    }
}
