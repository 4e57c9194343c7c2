import Presentation

/// The checksum every stored row ends with: a session's bytes (`SessionCodec`, format 5), a
/// chunk of events and a row of the log. SQLite checks its pages' structure but keeps no
/// checksum of them (only its write-ahead log has frame checksums), so a bit turned over on
/// disk or in a copy reached a row's bytes unseen: a screen's name read back changed, or a
/// log entry's revision made an older state win.
///
/// A row sealed so is its first byte, a marker that tells it from the rows servers wrote
/// before (each kind of row has its own, see `checkedEnd`), its payload, then 8 bytes: the
/// checksum of everything before them, little-endian.
///
/// The checksum: a 64-bit state that takes in the row 8 bytes at a time (little-endian, the
/// last word padded with zeros), each step `bswap((state ^ word) * K) * K`, the row's length
/// in the seed, and murmur3's finalizer at the end. No C, no tables: 4 instructions for
/// every 8 bytes, where CRC-32C by slicing tables takes about 2 a byte, on every durable
/// change. What it catches for certain (every step and the finalizer are bijections of the
/// state, so two rows that differ in one word never meet again):
/// - any change within one aligned 8-byte word, so any single flipped bit, or any damage
///   within one byte;
/// - any change within 4 consecutive bytes across two words, the top `a` bytes of one and
///   the low `b` of the next: the product's change is then in its top `a` bytes (carries run
///   upwards), the byte swap takes it into the low `a` bytes, a difference `d` of less than
///   2^(8a), and the next word's change cancels it only if `d * K` modulo 2^64 is within
///   2^(8b) of 0. For this K no `d` does when a + b = 4 (checked for every `d`).
/// Other damage goes unseen with a chance of about 2^-64. It is no MAC: anyone who can write
/// the file can write a row and its checksum (SECURITY.md).
enum RowChecksum {
    /// Bytes of the checksum at a sealed row's end.
    static let size = 8

    private static let seed: UInt64 = 0x5053_5331_6368_6B31  // "PSS1chk1"
    /// Odd, so multiplying by it is a bijection of the 64-bit state.
    static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The checksum of `bytes`, with `first` in place of their first byte when given: how a
    /// row whose marker was damaged is still recognised as sealed.
    static func of(_ bytes: UnsafeRawBufferPointer, first: UInt8? = nil) -> UInt64 {
        let count = bytes.count
        var state = seed ^ (UInt64(truncatingIfNeeded: count) &* multiplier)
        guard let base = bytes.baseAddress, count > 0 else { return finish(state) }
        // The first byte is the low byte of the first word, which is XORed into the state
        // before anything else: the same as replacing it there.
        if let first { state ^= UInt64(base.load(as: UInt8.self) ^ first) }
        var word = base
        // Four words a turn, a pointer compared with the end: the fewest instructions a word.
        let fours = base + (count & ~31)
        while word < fours {
            state = step(state, load(word))
            state = step(state, load(word + 8))
            state = step(state, load(word + 16))
            state = step(state, load(word + 24))
            word += 32
        }
        let words = base + (count & ~7)
        while word < words {
            state = step(state, load(word))
            word += 8
        }
        let rest = count & 7
        if rest > 0 {
            var last: UInt64 = 0
            if count >= 8 {
                // The row's last 8 bytes, shifted down to those not yet taken in, zero above.
                last = load(base + (count - 8)) &>> UInt64(64 - 8 * rest)
            } else {
                for index in 0..<rest { last |= UInt64(word.load(fromByteOffset: index, as: UInt8.self)) &<< UInt64(8 * index) }
            }
            state = step(state, last)
        }
        return finish(state)
    }

    static func of(_ bytes: ArraySlice<UInt8>, first: UInt8? = nil) -> UInt64 {
        bytes.withUnsafeBytes { of($0, first: first) }
    }

    @inline(__always)
    private static func load(_ pointer: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
    }

    /// Takes in one word. A multiplication moves a change only upwards (carries run up), so
    /// the product's bytes are reversed, its top ones taken to the bottom, and multiplied
    /// again (`byteSwapped` is one instruction: a rotation here was compiled to two more
    /// multiplications).
    @inline(__always)
    private static func step(_ state: UInt64, _ word: UInt64) -> UInt64 {
        ((state ^ word) &* multiplier).byteSwapped &* multiplier
    }

    /// murmur3's fmix64: a bijection that spreads every bit of the state over the result.
    @inline(__always)
    private static func finish(_ state: UInt64) -> UInt64 {
        var value = state
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }

    /// The checksum `row` ends with; nil when it is too short to end with one.
    static func stored(in row: [UInt8]) -> UInt64? {
        guard row.count >= size else { return nil }
        var value: UInt64 = 0
        for index in 0..<size { value |= UInt64(row[row.count - size + index]) << (8 * UInt64(index)) }
        return value
    }

    /// Where the payload of `row` ends when it is sealed (it starts with `marker`): before its
    /// checksum, which is checked unless `verify` is false (the caller checked it). Nil when
    /// it is a row of a server before checksums, which has no marker and none to check.
    ///
    /// A row that does not start with `marker` but whose last 8 bytes are the checksum of the
    /// rest with `marker` first is a sealed row whose marker was damaged: refused, not read as
    /// an older row. Each kind of row keeps its marker apart from every first byte an older
    /// row of that kind can have.
    static func checkedEnd(of row: [UInt8], marker: UInt8, verify: Bool = true) throws(ByteDecodingError) -> Int? {
        guard let first = row.first else { return nil }
        let payloadEnd = row.count - size
        if first == marker {
            guard payloadEnd >= 1, let stored = stored(in: row) else { throw .invalid("the row is too short for its checksum") }
            if verify {
                let computed = of(row[..<payloadEnd])
                guard computed == stored else { throw mismatch(stored: stored, computed: computed) }
            }
            return payloadEnd
        }
        if verify, payloadEnd >= 1, let stored = stored(in: row), stored == of(row[..<payloadEnd], first: marker) {
            throw .checksumMismatch("the first byte, \(first), was \(marker)")
        }
        return nil
    }

    private static func mismatch(stored: UInt64, computed: UInt64) -> ByteDecodingError {
        .checksumMismatch("stored \(hex(stored)), computed \(hex(computed))")
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension ByteWriter {
    /// Ends what has been written with its checksum (`RowChecksum`): the writer then holds a
    /// sealed row, its first byte the marker the caller wrote first.
    mutating func seal() {
        let checksum = withBytes { RowChecksum.of(UnsafeRawBufferPointer($0)) }
        word(checksum)
    }
}
