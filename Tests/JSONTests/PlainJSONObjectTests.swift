import Testing

@testable import JSON

/// `PlainJSONObject` may give up on anything, but what it reads it must read as `JSONParser`
/// does: the same members, values and nesting, within the same limits.
@Suite("Plain objects, read without a tree")
struct PlainJSONObjectTests {
    /// The object `bytes` holds as the plain reader sees it, rebuilt as a `JSONValue`; nil
    /// when it gives up. Duplicate keys are the caller's to refuse, as a route's reader does.
    static func read(_ bytes: [UInt8], maxDepth: Int, maxStringBytes: Int, nestedMembers: Bool) -> JSONValue? {
        bytes.withUnsafeBufferPointer { read($0, maxDepth: maxDepth, maxStringBytes: maxStringBytes, nestedMembers: nestedMembers) }
    }

    private static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int, nestedMembers: Bool
    ) -> JSONValue? {
        var members: [JSONMember] = []
        let plain = PlainJSONObject.forEachMember(
            in: bytes, maxDepth: maxDepth, maxStringBytes: maxStringBytes, nestedMembers: nestedMembers
        ) { key, value in
            let key = String(decoding: key, as: UTF8.self)
            guard !members.contains(where: { $0.key == key }) else { return false }
            switch value {
            case .string(let bytes): members.append(JSONMember(key, .string(String(decoding: bytes, as: UTF8.self))))
            case .number(let bytes): members.append(JSONMember(key, .number(String(decoding: bytes, as: UTF8.self))))
            case .null: members.append(JSONMember(key, .null))
            case .object(let text):
                // The text must be what the writer writes for that value, as sessions keep it.
                guard text.description == JSONText(text.value).description else { return false }
                members.append(JSONMember(key, text.value))
            case .members(let bytes):
                guard let nested = read(bytes, maxDepth: maxDepth - 1, maxStringBytes: maxStringBytes, nestedMembers: false)
                else { return false }
                members.append(JSONMember(key, nested))
            }
            return true
        }
        return plain ? .object(members) : nil
    }

    @Test("Numbers of the outer object, and objects nested twice when asked")
    func outerNumbersAndNestedMembers() throws {
        let body = Array(#"{"root":{"screen":"a","params":{"n":1}},"ttl":3600,"neg":-0.5}"#.utf8)
        let value = try #require(Self.read(body, maxDepth: 3, maxStringBytes: 100, nestedMembers: true))
        #expect(value == (try JSONParser().parse(body)))
        #expect(value["ttl"] == .number("3600"))
        #expect(Self.read(body, maxDepth: 3, maxStringBytes: 100, nestedMembers: false) == nil)
        #expect(Self.read(body, maxDepth: 2, maxStringBytes: 100, nestedMembers: true) == nil)
        for refused in [#"{"n":01}"#, #"{"n":1e3}"#, #"{"n":1.}"#, #"{"n":-}"#, #"{"n":true}"#, #"{"n":[1]}"#] {
            #expect(Self.read(Array(refused.utf8), maxDepth: 3, maxStringBytes: 100, nestedMembers: true) == nil, "\(refused)")
        }
    }

    @Test("On 30,000 generated objects it reads what the parser reads, wherever it reads")
    func generated() throws {
        var generator = RandomJSON(seed: 0x0b1e_c7ed)
        var read = 0
        var readNested = 0
        var leftValid = 0
        for round in 0..<30_000 {
            let text = generator.objectText(depth: 3)
            let bytes = Array(text.utf8)
            let (maxDepth, maxStringBytes) = round % 5 == 0 ? (1 + generator.below(3), 2 + generator.below(8)) : (32, 1 << 20)
            let nestedMembers = round % 2 == 0
            let parsed = try? JSONParser(maxDepth: maxDepth, maxStringBytes: maxStringBytes).parse(bytes)
            guard let plain = Self.read(bytes, maxDepth: maxDepth, maxStringBytes: maxStringBytes, nestedMembers: nestedMembers)
            else {
                if parsed != nil { leftValid += 1 }
                continue
            }
            read += 1
            if plain.depth == 3 { readNested += 1 }
            try #require(plain == parsed, "\(text) at depth \(maxDepth), strings of \(maxStringBytes)")
        }
        #expect(read > 3_000)
        #expect(readNested > 150)
        #expect(leftValid > 1_000)
    }

    @Test("JSONText(parsing:) takes plain objects without a tree, to the text the parser's value writes")
    func textOfPlainObjects() throws {
        var generator = RandomJSON(seed: 0x7e47_0b1e)
        var plain = 0
        var refused = 0
        for round in 0..<20_000 {
            let text = generator.objectText(depth: 2)
            let bytes = Array(text.utf8)
            let (maxDepth, maxStringBytes) = round % 5 == 0 ? (generator.below(3), 2 + generator.below(8)) : (32, 1 << 20)
            let expected = try? JSONText(JSONParser(maxDepth: maxDepth, maxStringBytes: maxStringBytes).parse(bytes))
            let actual = try? JSONText(parsing: bytes, maxDepth: maxDepth, maxStringBytes: maxStringBytes)
            try #require(actual == expected, "\(text) at depth \(maxDepth), strings of \(maxStringBytes)")
            if expected == nil { refused += 1 }
            if bytes.withUnsafeBufferPointer({ PlainJSONObject.objectText($0, maxStringBytes: maxStringBytes) }) != nil {
                plain += 1
            }
        }
        #expect(plain > 3_000)
        #expect(refused > 1_000)
    }
}

/// Object texts of strings, numbers and literals nested up to a depth, mostly plain, now and
/// then with something that is not (an escape, a byte beyond ASCII, an array, a grammar error).
extension RandomJSON {
    mutating func pick(_ choices: [String]) -> String { choices[below(choices.count)] }

    mutating func blank() -> String {
        below(4) != 0 ? "" : below(30) == 0 ? "\u{0C}" : pick([" ", "\n", "\t", "\r\n"])
    }

    mutating func scalarText() -> String {
        if below(8) != 0 {
            return pick([#""a""#, #""screen""#, #""two words""#, "0", "-0", "12", "-3.25", "0.5", "true", "false", "null"])
        }
        return pick([#""\n""#, #""é""#, "\"tab\tin\"", "01", "1e5", "1.", "-", "[1]", "tru", #""unterminated"#])
    }

    mutating func objectText(depth: Int) -> String {
        var members: [String] = []
        for _ in 0..<below(5) {
            let key = pick([#""a""#, #""b""#, #""root""#, #""params""#, #""n""#, #""a""#])
            let value = depth > 1 && below(2) == 0 ? objectText(depth: depth - 1) : scalarText()
            members.append(blank() + key + blank() + ":" + blank() + value + blank())
        }
        var text = "{" + blank() + members.joined(separator: ",") + "}"
        if below(50) == 0 { text.removeLast() }
        if below(50) == 0 { text += "," }
        return blank() + text + blank()
    }
}
