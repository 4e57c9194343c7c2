package import JSON

/// Appends the primitives of the binary forms: variable-length integers, strings, bytes.
///
/// Shared by the event history (which keeps its events packed this way) and the stored
/// session format in SessionStorage, so an event has one binary form in memory and on disk.
///
/// Integers are LEB128 after a zigzag turn, so small numbers, the usual case, take one byte.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    package mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    package mutating func integer(_ value: Int) {
        let wide = Int64(value)
        unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    package mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// The exact bits of a double, little-endian: dates come back to the same instant.
    package mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func data(_ value: [UInt8]) {
        unsigned(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Bytes as they are, with no length: for what is already in this form.
    package mutating func raw(_ value: ArraySlice<UInt8>) {
        bytes.append(contentsOf: value)
    }

    /// A session id as `string(_:)` would write its `rawValue`, without making that String.
    package mutating func string(_ id: SessionID) {
        unsigned(UInt64(SessionID.length))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: SessionID.length))
        bytes.withUnsafeMutableBufferPointer { id.spell(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
    }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// JSON kept as text goes as its bytes, like a string.
    package mutating func text(_ value: JSONText) {
        unsigned(UInt64(value.count))
        value.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A presence byte, then the string when there is one.
    package mutating func optional(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
}
