import Foundation
import JSON
import Testing

/// Our parser against Foundation's, on texts that are valid JSON and on the same texts with a
/// byte changed. Whatever we accept, Foundation must accept as the same value: we are stricter,
/// never more lenient. Where only Foundation accepts, the refusal must be one of the rules we
/// add on purpose (see `JSONParser`): duplicate keys, lone surrogates, bad UTF-8, our limits.
/// Foundation (on Linux, measured) is itself lenient in three ways, which the comparison allows:
/// it takes a trailing comma (`[1,]`), a NUL byte after or before a scalar (`0\0`), and it drops
/// U+FEFF from strings in places (see `withoutBOMs`).
@Suite("JSON parsing against Foundation")
struct FoundationDifferentialTests {
    /// Bytes a change puts in: the grammar's own, and bytes UTF-8 and escapes can get wrong.
    static let mutationBytes: [UInt8] = Array(#"{}[],:"\ 0123456789eE+-.tfnaulrsu"#.utf8) + [
        0x00, 0x01, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ]

    /// Refusals that go beyond what Foundation refuses, each on purpose.
    static func isDeliberatelyStricter(_ reason: JSONParseError.Reason) -> Bool {
        switch reason {
        case .duplicateKey, .invalidEscape, .invalidUTF8, .tooDeep, .stringTooLong, .numberOutOfRange: true
        default: false
        }
    }

    @Test("Texts with a byte changed: what we accept Foundation reads as the same value", arguments: 0..<20 as Range<UInt64>)
    func changedTexts(seed: UInt64) throws {
        var generator = RandomJSON(seed: seed ^ 0x5EED_F00D)
        let parser = JSONParser()
        for _ in 0..<1000 {
            var writer = JSONWriter()
            writer.write(generator.value(depth: 0))
            var bytes = writer.bytes
            for _ in 0..<1 + generator.below(3) {
                let at = generator.below(bytes.count + 1)
                let byte = Self.mutationBytes[generator.below(Self.mutationBytes.count)]
                switch generator.below(3) {
                case 0 where at < bytes.count: bytes[at] = byte
                case 1 where at < bytes.count: bytes.remove(at: at)
                default: bytes.insert(byte, at: at)
                }
            }
            try compare(bytes, parser: parser)
        }
    }

    @Test("What we write, Foundation reads as the value written", arguments: 0..<10 as Range<UInt64>)
    func writtenValues(seed: UInt64) throws {
        var generator = RandomJSON(seed: seed ^ 0xF00D_5EED)
        for _ in 0..<200 {
            let value = generator.value(depth: 0)
            var writer = JSONWriter()
            writer.write(value)
            let shown = String(decoding: writer.bytes, as: UTF8.self).debugDescription
            guard let theirs = try? JSONSerialization.jsonObject(with: Data(writer.bytes), options: [.fragmentsAllowed]) else {
                Issue.record("Foundation refused what we wrote: \(shown)")
                continue
            }
            if let difference = Self.difference(value, theirs) { Issue.record("\(shown) read differently at \(difference)") }
        }
    }

    @Test(
        "Texts at the grammar's edges are read as Foundation reads them",
        arguments: [
            "0", "-0", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "1E-0", "0.0e00", "1.5e308", "-1e-400", "tru", "nul",
            "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[\"\\u00e9\\uD83D\\uDE00\"]", "\"\\ud83d\\ude00\"",
            "\"\\uDE00\"", "\"\\uD83D\"", "\"\\uD83Dx\"", "\"\\x41\"", "\"\\/\"", "\"\\u004\"", " [ ] ", "\t\"a\"\r\n", "[]x",
            "123456789012345678901234567890", "-9223372036854775809", "18446744073709551616", "1e308", "2e308", "[[[]]]",
        ])
    func edgeTexts(text: String) throws {
        try compare(Array(text.utf8), parser: JSONParser())
    }

    @Test(
        "Raw bytes at UTF-8's edges inside a string are read as Foundation reads them",
        arguments: [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xF0, 0x90, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xC2], [0xE2, 0x82], [0xFF], [0x7F],
        ] as [[UInt8]])
    func utf8Edges(bytes: [UInt8]) throws {
        try compare([0x22] + bytes + [0x22], parser: JSONParser())
    }

    private func compare(_ bytes: [UInt8], parser: JSONParser) throws {
        let shown = String(decoding: bytes, as: UTF8.self).debugDescription
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        do {
            let ours = try parser.parse(bytes)
            guard let theirs else {
                Issue.record("we accepted \(shown), which Foundation refuses")
                return
            }
            if let difference = Self.difference(ours, theirs) { Issue.record("\(shown) read differently at \(difference)") }
        } catch {
            if theirs != nil && !Self.isFoundationLeniency(bytes) {
                #expect(
                    Self.isDeliberatelyStricter(error.reason),
                    "we refused \(shown), which Foundation accepts, for a reason not on purpose: \(error)")
            }
        }
    }

    /// `string` without U+FEFF, which Foundation drops at a string's start and after each escape
    /// (it decodes the runs between escapes one by one, each as if it were a file with a BOM).
    static func withoutBOMs(_ string: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: string.unicodeScalars.filter { $0 != "\u{FEFF}" })
        return String(scalars)
    }

    /// Texts Foundation accepts against RFC 8259: a NUL byte anywhere, a comma before a close.
    static func isFoundationLeniency(_ bytes: [UInt8]) -> Bool {
        if bytes.contains(0) { return true }
        var afterComma = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: ","): afterComma = true
            case UInt8(ascii: " "), 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "]"), UInt8(ascii: "}"): if afterComma { return true }
            default: afterComma = false
            }
        }
        return false
    }

    /// Where Foundation's reading of a text differs from ours, or nil when it is the same value.
    static func difference(_ ours: JSONValue, _ theirs: Any, at path: String = "$") -> String? {
        let differs = "\(path): ours \(ours), Foundation's \(theirs)"
        switch ours {
        case .null: return theirs is NSNull ? nil : differs
        case .bool(let value): return (theirs as? Bool) == value ? nil : differs
        case .number(let spelling):
            guard let number = theirs as? NSNumber, let double = Double(spelling) else { return differs }
            let other = number.doubleValue
            // Foundation reads long spellings as NSDecimalNumber, whose `doubleValue` is off in
            // the 16th digit: close is what can be asked of it.
            return double == other || abs(double - other) <= abs(double) * 1e-12 ? nil : differs
        case .string(let string):
            guard let other = theirs as? String else { return differs }
            return withoutBOMs(other) == withoutBOMs(string) ? nil : differs
        case .array(let items):
            guard let others = theirs as? [Any], others.count == items.count else { return differs }
            return zip(items, others).enumerated().lazy.compactMap { index, pair in
                difference(pair.0, pair.1, at: "\(path)[\(index)]")
            }.first
        case .object(let members):
            guard let dictionary = theirs as? [String: Any], dictionary.count == members.count else { return differs }
            let others = Dictionary(dictionary.map { (withoutBOMs($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            return members.lazy.compactMap { member in
                guard let other = others[withoutBOMs(member.key)] else { return "\(path): Foundation has no \(member.key.debugDescription)" }
                return difference(member.value, other, at: "\(path)[\(member.key.debugDescription)]")
            }.first
        }
    }
}
