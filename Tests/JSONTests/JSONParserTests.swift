import Foundation
import JSON
import Synchronization
import Testing

/// What the parser accepts, and what it makes of it.
@Suite("JSON parser: accepted texts")
struct JSONParserTests {
    let parser = JSONParser()

    @Test(
        "Valid texts parse to the expected value",
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            (" \t\r\n 0 \n", .number("0")),
            ("\"\"", .string("")),
            ("\"hello\"", .string("hello")),
            ("[]", .array([])),
            ("{}", .object([])),
            ("[ ]", .array([])),
            ("{ }", .object([])),
            (
                "[1,\"a\",null,true,false,[],{}]",
                .array([.number("1"), .string("a"), .null, .bool(true), .bool(false), .array([]), .object([])])
            ),
            (
                "{ \"a\" : 1 , \"b\" : [ 2 ] }",
                .object([JSONMember("a", .number("1")), JSONMember("b", .array([.number("2")]))])
            ),
            (
                "{\"a\":{\"a\":{\"a\":null}}}",
                .object([JSONMember("a", .object([JSONMember("a", .object([JSONMember("a", .null)]))]))])
            ),
            ("{\"\":0}", .object([JSONMember("", .number("0"))])),
            ("{\"a\":1,\"A\":2}", .object([JSONMember("a", .number("1")), JSONMember("A", .number("2"))])),
        ]
    )
    func parsesValidText(text: String, expected: JSONValue) throws {
        #expect(try parser.parse(text) == expected)
    }

    @Test("Objects keep their members in the order written")
    func keepsMemberOrder() throws {
        let value = try parser.parse("{\"z\":1,\"a\":2,\"m\":3}")
        #expect(value.objectMembers?.map(\.key) == ["z", "a", "m"])
    }

    @Test(
        "Numbers keep their original spelling",
        arguments: [
            "0", "-0", "1", "-1", "10", "1.5", "1.50", "-0.0", "0e0", "0E+0", "1e-2", "1E+2", "12.34e56",
            "12345678901234567890123", "1.7976931348623157e308", "5e-324", "1e-999",
            "0.000000000000000000000000000000000000000000000001",
        ]
    )
    func keepsNumberSpelling(spelling: String) throws {
        #expect(try parser.parse(spelling) == .number(spelling))
        #expect(try parser.parse("[\(spelling)]") == .array([.number(spelling)]))
    }

    @Test("An integer of 309 digits still fits a Double")
    func acceptsLongestFiniteInteger() throws {
        let spelling = "1" + String(repeating: "0", count: 308)
        #expect(try parser.parse(spelling) == .number(spelling))
    }

    @Test(
        "Escapes are unescaped",
        arguments: [
            ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\u{8}\u{C}\n\r\t"),
            ("\"\\u0041\\u00e9\\u00E9\\u20AC\"", "Aéé€"),
            ("\"a\\u0000b\"", "a\u{0}b"),
            ("\"\\u001F\\u007f\"", "\u{1F}\u{7F}"),
            ("\"\\uD83D\\uDE00\"", "😀"),
            ("\"\\ud83d\\ude00\"", "😀"),
            ("\"\\uD800\\uDC00\"", "\u{10000}"),
            ("\"\\uDBFF\\uDFFF\"", "\u{10FFFF}"),
            ("\"x\\uD834\\uDD1Ey\"", "x𝄞y"),
            ("\"\\uFFFF\\uE000\\uD7FF\"", "\u{FFFF}\u{E000}\u{D7FF}"),
            ("\"\\u2028\\u2029\"", "\u{2028}\u{2029}"),
            ("\"a\\nb\\\\n\"", "a\nb\\n"),
        ]
    )
    func unescapes(text: String, expected: String) throws {
        #expect(try parser.parse(text) == .string(expected))
    }

    @Test(
        "Multi-byte UTF-8 passes through, at every boundary of the encoding",
        arguments: [
            "é", "€", "😀", "日本語", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFD}",
            "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "a\u{301}", "👩‍👩‍👧",
        ]
    )
    func passesUTF8Through(string: String) throws {
        #expect(try parser.parse("\"\(string)\"") == .string(string))
        #expect(try parser.parse("{\"\(string)\":\"\(string)\"}") == .object([JSONMember(string, .string(string))]))
    }

    @Test("The same key in different objects is not a duplicate")
    func allowsRepeatedKeysAcrossObjects() throws {
        let value = try parser.parse("[{\"a\":1},{\"a\":2,\"b\":{\"a\":3}}]")
        #expect(value.arrayValue?.count == 2)
    }

    @Test("Nesting exactly at the limit is accepted", arguments: [0, 1, 2, 32])
    func acceptsNestingAtLimit(limit: Int) throws {
        let parser = JSONParser(maxDepth: limit)
        let arrays = String(repeating: "[", count: limit) + "1" + String(repeating: "]", count: limit)
        let objects = String(repeating: "{\"a\":", count: limit) + "1" + String(repeating: "}", count: limit)
        #expect(try parser.parse(arrays).depth == limit)
        #expect(try parser.parse(objects).depth == limit)
    }

    /// On a thread of the server's request threads' stack (8 MiB, `HTTPServer.requestThreadStackBytes`),
    /// not the test's own: a thread started without a size gets `ulimit -s`, and under
    /// `ulimit -s unlimited` glibc gives it 2 MiB, where this parse (about 2.2 MiB in a debug
    /// build) overflowed and took the whole test process down with SIGSEGV.
    @Test("A higher limit allows deep nesting without exhausting the stack")
    func acceptsDeepNestingWhenAllowed() throws {
        let depth = 1_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let parsed = Self.onRequestSizedStack { try? JSONParser(maxDepth: depth).parse(text).depth }
        #expect(parsed == depth)
    }

    /// `body`'s result, run on a thread of its own with 8 MiB of stack.
    static func onRequestSizedStack<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value {
        let result = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }

    @Test("Strings exactly at the length limit are accepted, counted in unescaped UTF-8 bytes")
    func acceptsStringAtLimit() throws {
        let parser = JSONParser(maxStringBytes: 4)
        #expect(try parser.parse("\"abcd\"") == .string("abcd"))
        #expect(try parser.parse("\"éé\"") == .string("éé"))
        #expect(try parser.parse("\"\\u0041\\u0042\\u0043\\u0044\"") == .string("ABCD"))
        #expect(try parser.parse("\"😀\"") == .string("😀"))
        #expect(try parser.parse("{\"abcd\":\"\"}") == .object([JSONMember("abcd", .string(""))]))
    }

    @Test("The default string limit is one mebibyte")
    func acceptsMebibyteString() throws {
        let string = String(repeating: "x", count: 1 << 20)
        #expect(try parser.parse("\"\(string)\"") == .string(string))
        #expect(throws: JSONParseError(offset: 0, reason: .stringTooLong(limit: 1 << 20))) {
            try parser.parse("\"\(string)y\"")
        }
    }

    @Test("A big array of objects parses completely")
    func parsesBigArray() throws {
        let count = 50_000
        let element = "{\"id\":123,\"name\":\"screen \\u00e9\",\"tags\":[true,false,null],\"score\":-1.5e3}"
        let text = "[" + Array(repeating: element, count: count).joined(separator: ",") + "]"
        let value = try parser.parse(text)
        #expect(value.arrayValue?.count == count)
        #expect(value.arrayValue?.last?["name"] == .string("screen é"))
        #expect(value.arrayValue?.last?["score"] == .number("-1.5e3"))
    }

    @Test("An object with many keys parses, and a late duplicate is still found")
    func parsesObjectWithManyKeys() throws {
        let count = 20_000
        let members = (0..<count).map { "\"key\($0)\":\($0)" }
        let text = "{" + members.joined(separator: ",") + "}"
        let value = try parser.parse(text)
        #expect(value.objectMembers?.count == count)
        #expect(value["key19999"]?.intValue == 19_999)

        let duplicated = "{" + members.joined(separator: ",") + ",\"key12345\":0}"
        let offset = duplicated.utf8.count - "\"key12345\":0}".utf8.count
        #expect(throws: JSONParseError(offset: offset, reason: .duplicateKey("key12345"))) {
            try parser.parse(duplicated)
        }
    }

    @Test("Parsing bytes and parsing the same text as a String agree")
    func bytesAndStringAgree() throws {
        let text = "{\"a\":[1,2,{\"b\":\"ü\"}]}"
        #expect(try parser.parse(Array(text.utf8)) == parser.parse(text))
    }
}
