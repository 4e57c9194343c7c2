/// Reads what `ByteWriter` wrote, refusing anything truncated, oversized or not UTF-8.
package struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var offset: Int
    /// The version of the stored format being read, for readers of fields that changed between
    /// versions; 0 when the bytes are not a stored session.
    package var format: UInt8 = 0

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    package init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// The index in the bytes given of the next byte to read.
    package var position: Int { offset }

    package var isAtEnd: Bool { offset == bytes.endIndex }

    package mutating func byte() throws(ByteDecodingError) -> UInt8 {
        guard offset < bytes.endIndex else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func unsigned() throws(ByteDecodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw .invalid("an integer is longer than 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }

    package mutating func integer() throws(ByteDecodingError) -> Int {
        let raw = try unsigned()
        return Int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
    }

    /// A count of things still to read: never more than the bytes left, so a corrupt count cannot reserve memory.
    package mutating func count() throws(ByteDecodingError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.endIndex - offset) else { throw .invalid("a count of \(value) exceeds the data") }
        return Int(value)
    }

    package mutating func bool() throws(ByteDecodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw .invalid("\(other) is not a boolean")
        }
    }

    package mutating func double() throws(ByteDecodingError) -> Double {
        var bits: UInt64 = 0
        for position in 0..<8 {
            bits |= UInt64(try byte()) << (8 * UInt64(position))
        }
        return Double(bitPattern: bits)
    }

    package mutating func data() throws(ByteDecodingError) -> [UInt8] {
        let length = try count()
        defer { offset += length }
        return Array(bytes[offset..<offset + length])
    }

    /// Moves past what `data()` would read, without copying it.
    package mutating func skipData() throws(ByteDecodingError) {
        offset += try count()
    }

    package mutating func string() throws(ByteDecodingError) -> String {
        let length = try count()
        defer { offset += length }
        let stored = bytes[offset..<offset + length]
        // ASCII is UTF-8 as it stands: most strings (ids, names, titles) need no more than
        // this scan, where the comparison below took about 155 instructions a string
        // (docs/performance.md, item 100).
        if stored.allSatisfy({ $0 < 0x80 }) { return String(decoding: stored, as: UTF8.self) }
        // Decoded, then compared: decoding replaces whatever is not UTF-8, so the string's
        // bytes are the stored ones only when those were valid. `String(validating:as:)` says
        // the same, but through the standard library's unspecialized generic code, which looks
        // up two types' metadata each call: about 650 instructions, ten times an event history
        // read (docs/performance.md, item 87).
        var string = String(decoding: stored, as: UTF8.self)
        let same = string.withUTF8 { decoded in stored.withUnsafeBufferPointer { decoded.elementsEqual($0) } }
        guard same else { throw .invalid("a string is not UTF-8") }
        return string
    }

    package mutating func optional() throws(ByteDecodingError) -> String? {
        try bool() ? try string() : nil
    }
}
