import JSON
import Testing

/// Property: any value the writer writes, the parser reads back unchanged.
@Suite("JSON round trips")
struct JSONRoundTripTests {
    @Test("Random values written then parsed come back equal", arguments: 0..<40 as Range<UInt64>)
    func randomValuesRoundTrip(seed: UInt64) throws {
        var generator = RandomJSON(seed: seed)
        let parser = JSONParser()
        for _ in 0..<50 {
            let value = generator.value(depth: 0)
            var writer = JSONWriter()
            writer.write(value)
            let parsed = try parser.parse(writer.bytes)
            #expect(parsed == value)

            var again = JSONWriter()
            again.write(parsed)
            #expect(again.bytes == writer.bytes)
        }
    }

    @Test("Nesting written at the parser's limit parses back")
    func nestingAtLimitRoundTrips() throws {
        var value = JSONValue.string("core")
        for level in 0..<32 {
            value = level.isMultiple(of: 2) ? .array([value, .null]) : .object([JSONMember("k\(level)", value)])
        }
        var writer = JSONWriter()
        writer.write(value)
        #expect(try JSONParser().parse(writer.bytes) == value)
    }

    @Test(
        "Texts already in compact form are written back byte for byte",
        arguments: [
            #"{"a":[1,-0.5e+10,"\u0000\"\\\n",true,false,null],"b":{},"c":[]}"#,
            #"["\u2028\u2029","é😀","\u001f"]"#,
            #"{"z":{"y":{"x":[0,1E2,1e-2]}}}"#,
        ]
    )
    func compactTextsRoundTrip(text: String) throws {
        var writer = JSONWriter()
        writer.write(try JSONParser().parse(text))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
    }
}

/// Seeded random JSON values, so a failing case can be replayed from its seed.
struct RandomJSON {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    /// SplitMix64, as SessionChecks' is: the JSON tests depend on the JSON module alone, so
    /// they keep this one copy rather than take Presentation in with SessionChecks.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func value(depth: Int) -> JSONValue {
        let kinds = depth >= 6 ? 4 : 6
        switch below(kinds) {
        case 0: return below(4) == 0 ? .null : .bool(below(2) == 0)
        case 1: return .number(number())
        case 2, 3: return .string(string())
        case 4: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
        default:
            var keys = Set<String>()
            var members: [JSONMember] = []
            for _ in 0..<below(5) {
                let key = string()
                if keys.insert(key).inserted { members.append(JSONMember(key, value(depth: depth + 1))) }
            }
            return .object(members)
        }
    }

    /// A spelling from the whole grammar, kept well inside Double's range.
    private mutating func number() -> String {
        var spelling = below(3) == 0 ? "-" : ""
        if below(4) == 0 {
            spelling += "0"
        } else {
            spelling += String(1 + below(9)) + digits(below(18))
        }
        if below(3) == 0 { spelling += "." + digits(1 + below(10)) }
        if below(3) == 0 {
            spelling += ["e", "E"][below(2)] + ["", "+", "-"][below(3)] + digits(1 + below(2))
        }
        return spelling
    }

    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(below(10))) })
    }

    /// Mostly the characters escaping and UTF-8 handling can get wrong.
    private mutating func string() -> String {
        let tricky: [Unicode.Scalar] = [
            "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}", "\u{7F}",
            "\u{80}", "é", "\u{7FF}", "\u{800}", "€", "\u{2028}", "\u{2029}", "\u{D7FF}", "\u{E000}", "\u{FEFF}",
            "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<below(12) {
            switch below(4) {
            case 0: scalars.append(tricky[below(tricky.count)])
            case 1: scalars.append(Unicode.Scalar(UInt8(0x20 + below(0x5F))))
            case 2: scalars.append(Unicode.Scalar(UInt32(below(0x11_0000))) ?? "?")
            default: scalars.append(Unicode.Scalar(UInt8(0x61 + below(26))))
            }
        }
        return String(scalars)
    }
}
