import Presentation
import Testing

/// Strings read back from stored bytes (event records, durable sessions): exactly what was
/// written when it is UTF-8, refused when it is not, whatever the decoder would repair.
@Suite("Stored strings")
struct ByteReaderStringTests {
    @Test("A string comes back byte for byte", arguments: ["", "inbox", "a screen name longer than fifteen bytes", "détail", "日本語の画面", "😀 emoji", "a\u{0}b"])
    func roundTrip(string: String) throws {
        var writer = ByteWriter()
        writer.string(string)
        writer.string("after")
        var reader = ByteReader(writer.bytes)
        #expect(try reader.string() == string)
        #expect(try reader.string() == "after", "the next field starts where the string ends")
        #expect(reader.isAtEnd)
    }

    @Test(
        "Bytes that are not UTF-8 are refused, including a cut sequence as long as its repair",
        arguments: [
            [0x80],  // a lone continuation byte
            [0xF0, 0x90, 0x80, 0x61],  // a four-byte sequence cut after three: repaired to one U+FFFD, three bytes
            [0xC0, 0xAF],  // an overlong '/'
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0x61, 0xFF],  // a byte UTF-8 never uses
            [0xEF, 0xBF],  // U+FFFD itself, cut
        ] as [[UInt8]]
    )
    func refusesInvalid(bytes: [UInt8]) {
        var reader = ByteReader([UInt8(bytes.count)] + bytes)
        #expect(throws: ByteDecodingError.self) { try reader.string() }
    }

    @Test("U+FFFD stored as such is a character like any other")
    func replacementCharacterItself() throws {
        var reader = ByteReader([3, 0xEF, 0xBF, 0xBD])
        #expect(try reader.string() == "\u{FFFD}")
    }
}
