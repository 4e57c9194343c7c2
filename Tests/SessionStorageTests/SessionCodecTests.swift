import Foundation
import JSON
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
        let decoded = try SessionCodec.decode(bytes, events: StorageFixture.eventRows(of: session))
        #expect(decoded.id == session.id)
        #expect(decoded.tokenDigest == session.tokenDigest)
        let restored = try Session(
            id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: Limits(eventsKept: 12))
        #expect(restored == session)
        #expect(restored.snapshot == session.snapshot)
        #expect(SessionCodec.encode(restored) == bytes)
    }

    @Test("A long history, kept in several chunks and trimmed at the front, is written whole and in order")
    func longHistory() throws {
        let limits = Limits(eventsKept: 40)
        var session = Session(
            id: StorageFixture.id(6), token: SessionToken.random(), root: StorageFixture.spec("home"), now: StorageFixture.start)
        for round in 0..<45 {
            let moment = StorageFixture.start.addingTimeInterval(Double(round + 1))
            _ = try session.apply([Step(operation: .push(StorageFixture.spec("s\(round)")))], at: moment, limits: limits)
            _ = try session.apply([Step(operation: .pop(result: nil))], at: moment, limits: limits)
        }
        #expect(session.keptEventCount == 40 && session.eventsDroppedThrough == 51)
        let decoded = try StorageFixture.throughStorage(session)
        #expect(decoded.snapshot == session.snapshot)
        #expect(decoded.snapshot.events.map(\.revision) == Array(52...91))
    }

    @Test("A restored session goes on issuing fresh ids and revisions")
    func restoredSessionContinues() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(2))
        let decoded = try StorageFixture.throughStorage(session)
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
            #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(Array(bytes[..<length])) }
        }
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(bytes + [0]) }
    }

    @Test("A row written in format 1, params as a tagged value, reads back with the same params, as text")
    func formatOne() throws {
        let bytes = try #require(StorageFixture.bytes(hex: StorageFixture.formatOneRow))
        #expect(bytes.first == 1)
        let decoded = try SessionCodec.decode(bytes)
        let session = try Session(
            id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: .default)
        #expect(session.id.rawValue == "EnLR32oUuZg038pWehAL_w" && session.revision == 2)
        let path = session.root.path
        #expect(path.map(\.name) == ["inbox", "detail"])
        #expect(
            path[0].paramsText.description
                == #"{"folder":"all","n":1.50e3,"nested":{"list":[true,null,"Zo\#u{EB} \"q\"\n"]}}"#)
        #expect(path[1].paramsText.description == "{}")
        // Written again, it is the current format, its events apart, and reads back equal.
        let rewritten = SessionCodec.encode(session)
        #expect(rewritten.first == SessionCodec.version)
        #expect(StorageFixture.eventRows(of: session).count == 2)
        let again = try SessionCodec.decode(rewritten, events: StorageFixture.eventRows(of: session))
        #expect(again.snapshot == decoded.snapshot)
        // Without its rows of events it is a session without history, not the same one.
        #expect(try SessionCodec.decode(rewritten).snapshot.events.isEmpty)
        // An inline-events row (format 1) with rows of events besides is not one this server wrote.
        #expect(throws: ByteDecodingError.self) {
            try SessionCodec.decode(bytes, events: StorageFixture.eventRows(of: session))
        }
    }

    @Test("A row written in format 3, before states, reads back with no states and is rewritten as the current format")
    func formatThree() throws {
        let bytes = try #require(StorageFixture.bytes(hex: StorageFixture.formatThreeRow))
        #expect(bytes.first == 3)
        let events = try StorageFixture.formatThreeEvents.map { try #require(StorageFixture.bytes(hex: $0)) }
        let decoded = try SessionCodec.decode(bytes, events: events)
        var session = try Session(
            id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: .default)
        #expect(session.revision == 5 && session.keptEvents.count == 6)
        let path = session.root.path
        #expect(path.map(\.name) == ["inbox", "message"])
        #expect(path[1].paramsText.description == #"{"id":7}"#)
        #expect(path[1].result?.value == .string("ada") && path[1].result?.revision == 4)
        #expect(path.allSatisfy { $0.state == nil })
        #expect(session.top.presentation != nil)

        // It takes a state like any session, and its new bytes are the current format.
        let loaded = try ScreenState(name: "loaded", params: .object([JSONMember("n", .number("1"))]))
        _ = try session.apply(
            [Step(operation: .setState(screen: path[1].id, state: loaded, transition: .automatic))],
            at: StorageFixture.start.addingTimeInterval(60), limits: .default)
        let rewritten = SessionCodec.encode(session)
        #expect(rewritten.first == SessionCodec.version)
        let again = try SessionCodec.decode(rewritten, events: StorageFixture.eventRows(of: session))
        #expect(again.snapshot == session.snapshot)
        #expect(again.snapshot.root.path[1].state == loaded)
    }

    @Test("A row of events that is cut short or runs on is refused")
    func brokenEventRows() throws {
        let session = try StorageFixture.busySession(id: StorageFixture.id(7))
        let body = SessionCodec.encode(session)
        var rows = StorageFixture.eventRows(of: session)
        let last = rows.count - 1
        let whole = rows[last]
        rows[last] = Array(whole.dropLast())
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(body, events: rows) }
        rows[last] = whole + [0]
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(body, events: rows) }
    }

    @Test("Stored params that are not a JSON object are refused")
    func storedParamsChecked() throws {
        let session = Session(
            id: StorageFixture.id(5), token: SessionToken.random(), root: StorageFixture.spec("home"), now: StorageFixture.start)
        let bytes = SessionCodec.encode(session)
        // The root screen's params `{}` are the last 2-byte run "{}" after a length byte of 2 (events hold none).
        let at = try #require((0..<bytes.count - 2).last { bytes[$0] == 2 && bytes[$0 + 1] == 0x7B && bytes[$0 + 2] == 0x7D })
        var broken = bytes
        broken[at + 2] = 0x7B  // "{{"
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(broken) }
        broken = bytes
        broken[at + 1] = 0x5B
        broken[at + 2] = 0x5D  // "[]": JSON, but not an object
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(broken) }
    }

    @Test("A format version this server does not know is refused")
    func unknownVersion() throws {
        var bytes = SessionCodec.encode(try StorageFixture.busySession(id: StorageFixture.id(4)))
        bytes[0] = 99
        #expect(throws: ByteDecodingError.self) { try SessionCodec.decode(bytes) }
    }
}
