import Foundation
import Presentation
import SessionChecks
import Testing

@testable import SessionStorage

/// Every stored row ends with a checksum (`RowChecksum`): a session's bytes (format 5), a chunk
/// of events and a log row. Rows written before checksums are still read as they were.
@Suite("Checksums of stored rows")
struct RowChecksumTests {
    /// `bytes` with bit `bit` (0 the low bit of the first byte) turned over.
    static func flipped(_ bytes: [UInt8], bit: Int) -> [UInt8] {
        var bytes = bytes
        bytes[bit / 8] ^= 1 << UInt8(bit % 8)
        return bytes
    }

    /// Whether `error` is a checksum's refusal, rather than the decoder's.
    static func isChecksumMismatch(_ error: any Error) -> Bool {
        if case ByteDecodingError.checksumMismatch = error { return true }
        return false
    }

    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        RowChecksum.of(bytes[...])
    }

    @Test("Any single bit turned over, and any damage within 4 consecutive bytes, changes the checksum", arguments: 0..<4 as Range<UInt64>)
    func guarantees(seed: UInt64) {
        var random = SplitMix64(state: seed)
        for length in [1, 2, 7, 8, 9, 31, 32, 33, 64, 71, 100] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let sum = Self.checksum(bytes)
            for bit in 0..<length * 8 {
                #expect(Self.checksum(Self.flipped(bytes, bit: bit)) != sum, "length \(length), bit \(bit)")
            }
            // Every run of 2 to 4 bytes, overwritten so that its first and last bytes change.
            for width in 2...4 where width <= length {
                for start in 0...(length - width) {
                    var damaged = bytes
                    for index in start..<start + width { damaged[index] = UInt8(truncatingIfNeeded: random.next()) }
                    damaged[start] = bytes[start] ^ UInt8(truncatingIfNeeded: random.int(1..<256))
                    damaged[start + width - 1] = bytes[start + width - 1] ^ UInt8(truncatingIfNeeded: random.int(1..<256))
                    #expect(Self.checksum(damaged) != sum, "length \(length), bytes \(start)..<\(start + width)")
                }
            }
        }
        // The length counts: a row and the same row with a zero byte more differ.
        #expect(Self.checksum([1, 2, 3]) != Self.checksum([1, 2, 3, 0]))
        #expect(Self.checksum([]) != Self.checksum([0]))
    }

    /// RowChecksum's proof for damage across two words: a change of the top `a` bytes of one
    /// word and the low `b` bytes of the next, a + b = 4, cancels only if some d below 2^(8a)
    /// has d * K within 2^(8b) of 0, modulo 2^64. Checked for every d.
    @Test("No change of a word's top bytes can be cancelled by a change of the next word's low bytes within 4 bytes")
    func burstsAcrossWords() {
        for a in 1...3 {
            let limit = UInt64(1) << UInt64(8 * (4 - a))
            var cancelling = 0
            for d in 1..<(UInt64(1) << UInt64(8 * a)) {
                let product = d &* RowChecksum.multiplier
                if product < limit || product > 0 &- limit { cancelling += 1 }
            }
            #expect(cancelling == 0, "top \(a) bytes")
        }
    }

    @Test("A session's bytes are format 5, end with their checksum, and read back; any bit turned over is refused")
    func sessionRow() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(11))
        let row = SessionCodec.encode(session)
        let events = StorageFixture.eventRows(of: session)
        #expect(row.first == SessionCodec.checksummed)
        #expect(RowChecksum.stored(in: row) == RowChecksum.of(row.dropLast(RowChecksum.size)))
        #expect(try SessionCodec.decode(row, events: events).snapshot == session.snapshot)
        for bit in 0..<row.count * 8 {
            let damaged = Self.flipped(row, bit: bit)
            #expect("bit \(bit)") { try SessionCodec.decode(damaged, events: events) } throws: { Self.isChecksumMismatch($0) }
        }
    }

    /// 5 is one bit from 4 and from 1: either would read the row as an older format, with no
    /// checksum to check.
    @Test("A session's format byte turned to an older format is refused as a checksum failure, not read as that format")
    func damagedFormatByte() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(12))
        for older: UInt8 in [4, 1, 3, 2] {
            var row = SessionCodec.encode(session)
            row[0] = older
            #expect {
                try SessionCodec.decode(row, events: StorageFixture.eventRows(of: session))
            } throws: { error in
                Self.isChecksumMismatch(error) && "\(error)".contains("first byte, \(older), was 5")
            }
        }
    }

    @Test("A session's row of format 4, written before checksums, reads back as it was")
    func formatFourRow() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(13))
        let row = StorageFixture.formatFourRow(of: session)
        #expect(row.first == 4)
        #expect(try SessionCodec.checkedEnd(of: row) == row.count)
        let decoded = try SessionCodec.decode(row, events: StorageFixture.eventRows(of: session))
        #expect(decoded.snapshot == session.snapshot)
        // Cut short, it is refused as before, not taken for a sealed row.
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(Array(row.dropLast())) }
    }

    @Test("A chunk of events starts with an odd marker, ends with its checksum; any bit turned over is refused")
    func chunk() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(14))
        let packed = SessionCodec.packEvents(of: session, after: .min)
        let chunk = SessionCodec.chunk(of: packed)
        #expect(chunk.first == SessionCodec.chunkMarker && SessionCodec.chunkMarker & 1 == 1)
        let rows = try SessionCodec.unpackChunk(chunk)
        #expect(rows.map(\.revision) == session.keptEvents.map(\.revision))
        for bit in 0..<chunk.count * 8 {
            let damaged = Self.flipped(chunk, bit: bit)
            #expect("bit \(bit)") { try SessionCodec.unpackChunk(damaged) } throws: { Self.isChecksumMismatch($0) }
        }
    }

    @Test("A chunk written before checksums (its first byte even) reads as it was; an empty one is refused")
    func olderChunk() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(15))
        let packed = SessionCodec.packEvents(of: session, after: .min)
        #expect(packed.first.map { $0 & 1 } == 0, "a zigzag revision is even")
        #expect(try SessionCodec.unpackChunk(packed).map(\.revision) == session.keptEvents.map(\.revision))
        #expect(throws: ByteDecodingError.self) { try SessionCodec.unpackChunk([]) }
        #expect(throws: ByteDecodingError.self) { try SessionCodec.unpackChunk(SessionCodec.chunk(of: [])) }
    }

    /// A log row with an entry of each kind, as `SessionTable.apply` writes one.
    static func logRow(sealed: Bool) throws -> (row: [UInt8], entries: [SessionCodec.LogEntry]) {
        let session = try StorageFixture.busySession(id: StorageFixture.id(16))
        let lease = SessionLease(timeToLive: 3_600, lastAccess: StorageFixture.start)
        let body = SessionCodec.encode(session), events = SessionCodec.packEvents(of: session, after: 10)
        var writer = ByteWriter()
        if sealed { SessionCodec.beginLogRow(&writer) }
        SessionCodec.appendSaved(session.id, revision: session.revision, body: body, lease: lease, events: events, to: &writer)
        SessionCodec.appendTouched(StorageFixture.id(17), lease: lease, to: &writer)
        SessionCodec.appendRemoved(StorageFixture.id(18), to: &writer)
        if sealed { SessionCodec.sealLogRow(&writer) }
        let entries: [SessionCodec.LogEntry] = [
            .saved(rawID: session.id.rawValue, revision: session.revision, body: body, lease: lease, events: events),
            .touched(rawID: StorageFixture.id(17).rawValue, lease: lease),
            .removed(rawID: StorageFixture.id(18).rawValue),
        ]
        return (writer.bytes, entries)
    }

    @Test("A log row starts with its marker, ends with its checksum; any bit turned over, revisions too, is refused")
    func logRow() throws {
        let (row, entries) = try Self.logRow(sealed: true)
        #expect(row.first == SessionCodec.logRowMarker)
        #expect(try SessionCodec.logEntries(row) == entries)
        for bit in 0..<row.count * 8 {
            let damaged = Self.flipped(row, bit: bit)
            #expect("bit \(bit)") { try SessionCodec.logEntries(damaged) } throws: { Self.isChecksumMismatch($0) }
        }
        // Refused, the row's sessions can still be named.
        let ids = SessionCodec.sessionIDs(inLogRow: Self.flipped(row, bit: (row.count - 1) * 8))
        #expect(ids == entries.map(\.rawID))
    }

    @Test("A log row written before checksums (its first byte a kind, 0 to 2) reads as it was; an empty one is refused")
    func olderLogRow() throws {
        let (row, entries) = try Self.logRow(sealed: false)
        #expect(row.first == 0)
        #expect(try SessionCodec.logEntries(row) == entries)
        #expect(throws: ByteDecodingError.self) { try SessionCodec.logEntries([]) }
        var empty = ByteWriter()
        SessionCodec.beginLogRow(&empty)
        SessionCodec.sealLogRow(&empty)
        #expect(throws: ByteDecodingError.self) { try SessionCodec.logEntries(empty.bytes) }
        // The marker is 3 bits or more from every kind an older row starts with.
        for kind: UInt8 in 0...2 { #expect((SessionCodec.logRowMarker ^ kind).nonzeroBitCount >= 3) }
    }
}

extension SessionCodec.LogEntry {
    fileprivate var rawID: String {
        switch self {
        case .saved(let id, _, _, _, _), .touched(let id, _), .removed(let id): id
        }
    }
}
