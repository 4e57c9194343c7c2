package import JSON

/// Appends the primitives of the binary forms: variable-length integers, strings, bytes.
///
/// Shared by the event history (which keeps its events packed this way) and the stored
/// session format in SessionStorage, so an event has one binary form in memory and on disk.
///
/// Integers are LEB128 after a zigzag turn, so small numbers, the usual case, take one byte.
///
/// The bytes go into a `ByteBuffer` (the JSON writer's), written through a pointer, and `bytes`
/// copies them out once at the end. Appended to an `[UInt8]`, every primitive paid the array's
/// uniqueness and capacity checks: a string took 200-330 instructions, and a durable change's
/// encoding of a six-screen session about 13,000 (docs/performance.md, item 62).
package struct ByteWriter: ~Copyable {
    private var buffer: ByteBuffer

    package init(capacity: Int = 1024) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Writes into `scratch` while the bytes fit (`ByteBuffer(scratch:)`): for bytes read and
    /// dropped before the caller returns. The writer must not outlive `scratch`.
    package init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        buffer = ByteBuffer(scratch: scratch)
    }

    /// Bytes written so far.
    package var count: Int { buffer.count }

    /// What has been written, as an array of its exact size.
    package var bytes: [UInt8] { buffer.bytes }

    /// Calls `body` with what has been written, in place.
    package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try buffer.withBytes(body)
    }

    private mutating func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        UnsafeMutableRawPointer(buffer.room(for: source.count)).copyMemory(from: base, byteCount: source.count)
        buffer.count += source.count
    }

    package mutating func byte(_ value: UInt8) {
        buffer.append(value)
    }

    package mutating func unsigned(_ value: UInt64) {
        // Ten bytes hold any 64-bit value.
        buffer.count += Self.put(value, at: buffer.room(for: 10))
    }

    /// Writes `value` as `unsigned` does at `out`, which has room for what it takes (ten bytes
    /// hold any value); returns how many it wrote. For a caller that lays out bytes of its own
    /// (the event history's tail).
    package static func put(_ value: UInt64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var rest = value
        var written = 0
        while rest >= 0x80 {
            out[written] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            written += 1
        }
        out[written] = UInt8(rest)
        return written + 1
    }

    /// How many bytes `put` takes for `count`: seven bits a byte.
    static func lengthOfCount(_ count: Int) -> Int {
        var rest = UInt64(count) >> 7
        var length = 1
        while rest > 0 {
            rest >>= 7
            length += 1
        }
        return length
    }

    package mutating func integer(_ value: Int) {
        let wide = Int64(value)
        unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    package mutating func bool(_ value: Bool) {
        byte(value ? 1 : 0)
    }

    /// The exact bits of a double, little-endian: dates come back to the same instant.
    package mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { append($0) }
    }

    /// 8 bytes, little-endian, as they are: a stored row's checksum.
    package mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { append($0) }
    }

    package mutating func data(_ value: [UInt8]) {
        unsigned(UInt64(value.count))
        value.withUnsafeBytes { append($0) }
    }

    /// Bytes as they are, with no length: for what is already in this form.
    package mutating func raw(_ value: ArraySlice<UInt8>) {
        value.withUnsafeBytes { append($0) }
    }

    /// A session id as `string(_:)` would write its `rawValue`, without making that String.
    package mutating func string(_ id: SessionID) {
        unsigned(UInt64(SessionID.length))
        id.spell(into: UnsafeMutableBufferPointer(start: buffer.room(for: SessionID.length), count: SessionID.length))
        buffer.count += SessionID.length
    }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// JSON kept as text goes as its bytes, like a string.
    package mutating func text(_ value: JSONText) {
        unsigned(UInt64(value.count))
        value.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// A presence byte, then the string when there is one.
    package mutating func optional(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
}
