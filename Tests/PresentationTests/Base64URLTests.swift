import Testing

@testable import Presentation

@Suite("URL-safe base64")
struct Base64URLTests {
    static func encode(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes(Base64URL.encode) }

    @Test("Encodes RFC 4648's vectors without padding, and with the URL-safe alphabet", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func vectors(input: String, encoded: String) {
        #expect(Self.encode(Array(input.utf8)) == encoded)
    }

    @Test("Uses '-' and '_' where standard base64 has '+' and '/'")
    func urlSafeAlphabet() {
        #expect(Self.encode([0xFB, 0xFF]) == "-_8")
        #expect(Self.encode([0xFF, 0xFF, 0xFF]) == "____")
        #expect(Self.encode([0xF8, 0x00, 0x00]) == "-AAA")
    }

    @Test("Every character of an encoding decodes to the six bits it carries")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let encoded = Array(Self.encode(bytes).utf8)
        #expect(encoded.count == 43)
        var bits: [UInt8] = []
        for character in encoded {
            guard let value = Base64URL.value(of: character) else {
                Issue.record("\(character) is outside the alphabet")
                return
            }
            for shift in stride(from: 5, through: 0, by: -1) { bits.append(value >> UInt8(shift) & 1) }
        }
        var decoded: [UInt8] = []
        for start in stride(from: 0, to: 256, by: 8) {
            decoded.append(bits[start..<start + 8].reduce(0) { $0 << 1 | $1 })
        }
        #expect(decoded == bytes)
        #expect(bits[256...].allSatisfy { $0 == 0 }, "the last character's spare bits are zero")
    }
}
