import Foundation
import Presentation
import Testing

@Suite("Event history")
struct HistoryTests {
    @Test("Events after a revision are the later ones, oldest first")
    func eventsAfter() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(.push(Fixture.spec("b")))
        #expect(try session.events(after: 0).map(\.revision) == [1, 2, 3])
        #expect(try session.events(after: 2).map(\.kind) == [.pushed(screen: screenID("s4"), stack: stackID("k1"))])
        #expect(try session.events(after: 3).isEmpty)
        #expect(try session.events(after: -1).count == 3)
    }

    @Test("Asking for events after a revision not yet reached is refused")
    func ahead() {
        let session = Fixture.session()
        #expect(throws: PresentationError.revisionAhead(current: 1)) { try session.events(after: 2) }
    }

    @Test("Trimming drops whole revisions and refuses to answer for the dropped ones")
    func trimming() throws {
        var session = Fixture.session()
        let limits = Limits(eventsKept: 2)
        try session.run(.push(Fixture.spec("a")), limits: limits)
        #expect(try session.events(after: 0).map(\.revision) == [1, 2])
        // Revision 3 has two events (popped, result): revisions 1 and 2 make room.
        try session.run(.pop(result: .null), limits: limits)
        #expect(try session.events(after: 2).map(\.revision) == [3, 3])
        #expect(session.keptEvents.map(\.revision) == [3, 3])
        #expect(throws: PresentationError.historyExpired(oldest: 2)) { try session.events(after: 1) }
        #expect(throws: PresentationError.historyExpired(oldest: 2)) { try session.events(after: -1) }
        // Keeping two would split revision 3, so all of it goes.
        try session.run(.push(Fixture.spec("b")), limits: limits)
        #expect(try session.events(after: 3).map(\.revision) == [4])
        #expect(throws: PresentationError.historyExpired(oldest: 3)) { try session.events(after: 2) }
    }

    @Test("A revision with more events than are kept stays whole while it is the newest, then goes whole")
    func oversizedRevision() throws {
        var session = Fixture.session()
        let limits = Limits(eventsKept: 2)
        let steps = Array(repeating: Step(operation: .push(Fixture.spec("a"))), count: 3)
        let change = try session.apply(steps, at: Fixture.time(of: 2), limits: limits)
        #expect(change.events.count == 3)
        // A client that had revision 1 reads all of revision 2.
        #expect(try session.events(after: 1) == change.events)
        #expect(throws: PresentationError.historyExpired(oldest: 1)) { try session.events(after: 0) }
        try session.run(.pop(result: nil), limits: limits)
        #expect(try session.events(after: 2).map(\.revision) == [3])
        #expect(throws: PresentationError.historyExpired(oldest: 2)) { try session.events(after: 1) }
    }

    /// Kept counts below, at and across the history's 16-event chunks, over enough rounds to seal several.
    @Test("History expires exactly when an event after the asked revision is gone", arguments: [1, 3, 7, 16, 17, 20, 33, 70])
    func exactExpiry(kept: Int) throws {
        var session = Fixture.session()
        let limits = Limits(eventsKept: kept)
        var produced = try session.events(after: 0)
        for round in 0..<90 {
            let steps: [Step] =
                round % 3 == 0
                ? [Step(operation: .push(Fixture.spec("a"))), Step(operation: .pop(result: .bool(true)))]
                : [Step(operation: .replace(Fixture.spec("b")))]
            produced += try session.apply(steps, at: Fixture.time(of: session.revision + 1), limits: limits).events
            // The history keeps its byte count as chunks are sealed and dropped: it must be what
            // the kept events take packed, each after its length.
            let packed = session.keptEvents.reduce(0) { total, event in
                var writer = ByteWriter(capacity: 64)
                writer.write(event)
                return total + writer.bytes.count + (writer.bytes.count < 0x80 ? 1 : 2)
            }
            #expect(session.keptEventBytes == packed)
            for asked in 0...session.revision {
                let expected = produced.filter { $0.revision > asked }
                do {
                    #expect(try session.events(after: asked) == expected)
                } catch {
                    guard case .historyExpired(let oldest) = error else {
                        Issue.record("unexpected \(error)")
                        continue
                    }
                    #expect(asked < oldest)
                    #expect(try session.events(after: oldest) == produced.filter { $0.revision > oldest })
                    #expect(produced.filter { $0.revision > asked }.count > (try session.events(after: oldest)).count)
                }
            }
        }
    }

    @Test("A copy of a session keeps its history when the original goes on changing")
    func copiesAreIndependent() throws {
        var session = Fixture.session()
        for _ in 0..<40 { try session.run(.replace(Fixture.spec("a"))) }
        let copy = session
        let before = copy.keptEvents
        for _ in 0..<40 { try session.run(.replace(Fixture.spec("b")), limits: Limits(eventsKept: 50)) }
        #expect(copy.keptEvents == before)
        #expect(copy.keptEvents.count == 41)
        #expect(session.keptEvents.count == 50)
        #expect(session.keptEvents.map(\.revision) == Array(32...81))
    }

    /// A session changed one step at a time appends its events in place, in room its tail was
    /// given; a copy taken between steps shares that tail and must not see the later events.
    @Test("Copies taken between single steps keep their events while the original appends in place")
    func copiesBetweenSingleSteps() throws {
        var session = Fixture.session()
        var copies: [(session: Session, events: [Event])] = []
        for round in 0..<40 {
            copies.append((session, session.keptEvents))
            try session.run(round % 2 == 0 ? .push(Fixture.spec("a")) : .pop(result: nil), limits: Limits(eventsKept: 25))
        }
        for (copy, events) in copies { #expect(copy.keptEvents == events) }
        #expect(session.keptEvents.map(\.revision) == Array(17...41))
        #expect(session.keptEvents == copies.last!.events.suffix(24) + [session.keptEvents.last!])
    }

    /// A live history has dropped events at the front of its first chunk; a restored one starts
    /// its chunks afresh. They hold the same events, so they are equal.
    @Test("A history read back equals the one it was read from, however its chunks fall", arguments: [5, 16, 21])
    func equalAcrossChunking(kept: Int) throws {
        var session = Fixture.session()
        let limits = Limits(eventsKept: kept)
        for round in 0..<45 {
            try session.run(round % 2 == 0 ? .push(Fixture.spec("a")) : .pop(result: .string("r\(round)")), limits: limits)
        }
        let restored = try Session(
            id: session.id, tokenDigest: session.tokenDigest, restoring: session.snapshot, limits: limits)
        #expect(restored.keptEvents == session.keptEvents)
        #expect(restored == session)
        var other = restored
        try other.run(.push(Fixture.spec("b")), limits: limits)
        #expect(other != session)
    }
}
