import Testing

@testable import SessionStorage

/// The writer's entry for every session (`SessionTable.Stored`): kept small, as there is one a
/// session, and its narrow counts never make the writer skip work it must do.
@Suite("The writer's entry for a session")
struct StoredEntryTests {
    @Test("It is 16 bytes: with its id, 32 a bucket of the writer's dictionary")
    func sixteenBytes() {
        #expect(MemoryLayout<SessionTable.Stored>.stride == 16)
    }

    @Test("Counts past 32 bits are kept as the largest they can be, never as a wrapped smaller one")
    func clamped() {
        let large = Int(UInt32.max) + 5
        let entry = SessionTable.Stored(loggedThrough: large, size: large, droppedThrough: large)
        #expect(entry.loggedThrough == large)
        #expect(entry.size == UInt32.max)
        // Below the truth, so a fold of a session that dropped events past it still deletes their chunks.
        #expect(entry.droppedThrough == UInt32.max)
        #expect(Int(entry.droppedThrough) < large)
    }
}
