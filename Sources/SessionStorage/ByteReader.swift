/// Reads what `ByteWriter` wrote, refusing anything truncated, oversized or not UTF-8.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0
    /// The stored format being read (its first byte): fields that changed between formats look.
    var format = SessionCodec.version

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(SessionCodecError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func unsigned() throws(SessionCodecError) -> UInt64 {
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

    mutating func integer() throws(SessionCodecError) -> Int {
        let raw = try unsigned()
        return Int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
    }

    /// A count of things still to read: never more than the bytes left, so a corrupt count cannot reserve memory.
    mutating func count() throws(SessionCodecError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count - offset) else { throw .invalid("a count of \(value) exceeds the data") }
        return Int(value)
    }

    mutating func bool() throws(SessionCodecError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw .invalid("\(other) is not a boolean")
        }
    }

    mutating func double() throws(SessionCodecError) -> Double {
        var bits: UInt64 = 0
        for position in 0..<8 {
            bits |= UInt64(try byte()) << (8 * UInt64(position))
        }
        return Double(bitPattern: bits)
    }

    mutating func data() throws(SessionCodecError) -> [UInt8] {
        let length = try count()
        defer { offset += length }
        return Array(bytes[offset..<offset + length])
    }

    mutating func string() throws(SessionCodecError) -> String {
        let utf8 = try data()
        guard let string = String(validating: utf8, as: UTF8.self) else { throw .invalid("a string is not UTF-8") }
        return string
    }

    mutating func optional() throws(SessionCodecError) -> String? {
        try bool() ? try string() : nil
    }
}
