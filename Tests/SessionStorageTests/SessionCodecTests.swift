import Foundation
import Presentation
import Testing

@testable import SessionStorage

@Suite("Stored session format")
struct SessionCodecTests {
    @Test("A session with every kind of state comes back equal, and encodes to the same bytes")
    func roundTrip() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(1))
        #expect(session.keptEvents.count <= 12, "the fixture should have trimmed history")
        #expect(session.top.alert != nil)
        let bytes = SessionCodec.encode(session)
        let decoded = try SessionCodec.decode(bytes)
        #expect(decoded.id == session.id)
        #expect(decoded.tokenDigest == session.tokenDigest)
        let restored = try Session(
            id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: Limits(eventsKept: 12))
        #expect(restored == session)
        #expect(restored.snapshot == session.snapshot)
        #expect(SessionCodec.encode(restored) == bytes)
    }

    @Test("A restored session goes on issuing fresh ids and revisions")
    func restoredSessionContinues() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(2))
        let decoded = try SessionCodec.decode(SessionCodec.encode(session))
        var restored = try Session(
            id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: .default)
        var original = session
        let moment = StorageFixture.start.addingTimeInterval(100)
        let steps = [Step(operation: .dismiss(presentation: nil, result: nil)), Step(operation: .dismiss(presentation: nil, result: nil))]
        let expected = try original.apply(steps, at: moment, limits: .default)
        let got = try restored.apply(steps, at: moment, limits: .default)
        #expect(got == expected)
        #expect(restored == original)
    }

    @Test("Every truncation of a stored session is refused, never misread")
    func truncations() throws {
        let bytes = SessionCodec.encode(try StorageFixture.busySession(id: StorageFixture.id(3)))
        for length in 0..<bytes.count {
            #expect(throws: SessionCodecError.self) { try SessionCodec.decode(Array(bytes[..<length])) }
        }
        #expect(throws: SessionCodecError.self) { try SessionCodec.decode(bytes + [0]) }
    }

    @Test("A format version this server does not know is refused")
    func unknownVersion() throws {
        var bytes = SessionCodec.encode(try StorageFixture.busySession(id: StorageFixture.id(4)))
        bytes[0] = 99
        #expect(throws: SessionCodecError.self) { try SessionCodec.decode(bytes) }
    }
}
