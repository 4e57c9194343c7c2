import JSON
import Testing

@testable import Presentation

/// What the event history holds in memory, against what it keeps: events dropped from a chunk
/// it still needs are not held for long.
@Suite("Event history memory")
struct HistoryMemoryTests {
    @Test("Large dropped events are not held in a chunk with kept ones", arguments: [true, false])
    func droppedEventsAreLetGo(sealing: Bool) throws {
        let limits = Limits(eventsKept: sealing ? 128 : 12, maxSessionBytes: 8_000)
        var session = Fixture.session()
        let value = JSONValue.string(String(repeating: "v", count: 2_000))
        for _ in 0..<100 {
            try session.run(.push(Fixture.spec("a")), limits: limits)
            try session.run(.pop(result: value), limits: limits)
            let history = session.history
            #expect(history.byteCount <= 8_000 + 2_100)
            #expect(history.heldBytes - history.byteCount < 4_096, "held \(history.heldBytes), kept \(history.byteCount)")
        }
        // What is kept reads back: the newest revisions, whole.
        let revisions = session.keptEvents.map(\.revision)
        #expect(revisions.last == session.revision)
        #expect(try session.events(after: revisions[0] - 1).map(\.revision) == revisions)
    }
}
