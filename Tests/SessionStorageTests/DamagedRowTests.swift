import Presentation
import SessionChecks
import Testing

@testable import SessionStorage

/// A row damaged on disk (a flipped bit, a stray write) must be refused at start-up with an
/// error, never trap the server: a trap there would stop every restart, and the file could
/// not even be looked at through the server. Truncations have their own test.
@Suite("Damaged stored rows")
struct DamagedRowTests {
    /// `bytes` with one to three bytes replaced, inserted or removed.
    static func damaged(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<random.int(1..<4) {
            let at = random.int(0..<bytes.count)
            let byte = random.chance(30) ? random.pick([0x00, 0x01, 0x7F, 0x80, 0xFF]) : UInt8(truncatingIfNeeded: random.next())
            switch random.int(0..<4) {
            case 0: bytes.insert(byte, at: at)
            case 1 where bytes.count > 1: bytes.remove(at: at)
            default: bytes[at] = byte
            }
        }
        return bytes
    }

    /// What start-up does with a row and its events: decode, then restore (which checks the tree).
    static func restore(_ row: [UInt8], events: [[UInt8]]) -> Bool {
        guard let decoded = try? SessionCodec.decode(row, events: events) else { return false }
        return (try? Session(id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: Limits(eventsKept: 12))) != nil
    }

    @Test("A session's row with bytes changed is refused or read as some valid session, never a trap", arguments: 0..<8 as Range<UInt64>)
    func damagedSessionRows(seed: UInt64) throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(7))
        let row = SessionCodec.encode(session), events = StorageFixture.eventRows(of: session)
        #expect(Self.restore(row, events: events), "the undamaged row restores")
        var random = SplitMix64(state: seed)
        for _ in 0..<500 {
            _ = Self.restore(Self.damaged(row, &random), events: events)
        }
    }

    @Test("An event row with bytes changed is refused or read as some valid history, never a trap", arguments: 0..<8 as Range<UInt64>)
    func damagedEventRows(seed: UInt64) throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(8))
        let row = SessionCodec.encode(session), events = StorageFixture.eventRows(of: session)
        try #require(!events.isEmpty)
        var random = SplitMix64(state: seed)
        for _ in 0..<500 {
            var damagedEvents = events
            let which = random.int(0..<events.count)
            damagedEvents[which] = Self.damaged(events[which], &random)
            _ = Self.restore(row, events: damagedEvents)
        }
    }
}
