import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

@testable import SessionStorage

/// A session closed (expired or deleted) while a write of it is committed but not yet durable:
/// the journal's byte count must end as if the two had come one after the other, and nothing
/// may wait on itself.
@Suite("Closing a session while its write is under way")
struct ClosingDuringWriteTests {
    /// A durable store of one session, with the disk's next fsync held once `disk.hold()` is called.
    private struct Fixture {
        let directory = StorageFixture.directory()
        let disk = HeldDisk()
        let recovery: SessionDatabase.Recovery
        let store: InMemorySessionStore
        let id: SessionID

        init() throws {
            let disk = disk
            recovery = try SessionDatabase.open(
                directory: directory, limits: .default, now: StorageFixture.start, sync: { disk.sync($0) })
            store = InMemorySessionStore(journal: recovery.journal, clock: { StorageFixture.start })
            id = try store.create(root: StorageFixture.spec("home"), timeToLive: 60, now: StorageFixture.start).session.id
        }

        func close() {
            recovery.journal.close()
            StorageFixture.remove(directory)
        }

        /// Queues twenty pushes as one change and holds its fsync; `done` is signalled when it is answered.
        func changeHeld(done: DispatchSemaphore) {
            disk.hold()
            store.change(id, { session in
                for number in 0..<20 {
                    _ = try session.apply(
                        [Step(operation: .push(StorageFixture.spec("screen-\(number)")))], at: StorageFixture.start,
                        limits: .default)
                }
            }) { error in
                #expect(error == nil)
                done.signal()
            }
        }
    }

    /// Long past the session's 60 s lease.
    private static let late = StorageFixture.start.addingTimeInterval(3_600)

    @Test("A sweep leaves a session whose change is being written to the next sweep, which removes all it stored")
    func expiryWaitsForTheWrite() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        let created = fixture.recovery.journal.storedBytes
        let changed = DispatchSemaphore(value: 0)
        fixture.changeHeld(done: changed)
        #expect(fixture.disk.waitUntilSyncing(), "the change is committed, its fsync held")
        let written = fixture.recovery.journal.storedBytes
        #expect(written > created, "the journal counts the change's bytes once it commits")

        let sweep = Sweep(fixture.store, now: Self.late)
        #expect(sweep.count(within: 5) == 0, "busy: left to the next sweep, which does not wait for the write")
        #expect(fixture.store.count == 1)

        fixture.disk.release()
        #expect(changed.wait(timeout: .now() + 5) == .success)
        _ = sweep.count(within: 5)
        // The change is answered just before it frees the turn: a blocking read-only update
        // waits for the turn, so the sweep below finds the session idle.
        #expect(try fixture.store.update(fixture.id) { $0.revision } == 21, "the change landed")
        #expect(try fixture.store.removeExpired(now: Self.late) == 1)
        #expect(fixture.store.count == 0)
        #expect(fixture.recovery.journal.storedBytes == 0, "created \(created) B, then \(written) B")
    }

    @Test("A sweep leaves a session whose deletion is being written: it is removed once, not twice")
    func expiryWaitsForTheDeletion() throws {
        let fixture = try Fixture()
        defer { fixture.close() }
        #expect(fixture.recovery.journal.storedBytes > 0)
        let deleted = DispatchSemaphore(value: 0)
        fixture.disk.hold()
        fixture.store.delete(fixture.id) { result in
            #expect((try? result.get()) == true)
            deleted.signal()
        }
        #expect(fixture.disk.waitUntilSyncing(), "the deletion is committed, its fsync held")

        let sweep = Sweep(fixture.store, now: Self.late)
        #expect(sweep.count(within: 5) == 0, "the deletion holds the session's turn")

        fixture.disk.release()
        #expect(deleted.wait(timeout: .now() + 5) == .success)
        _ = sweep.count(within: 5)
        #expect(fixture.store.count == 0)
        #expect(fixture.recovery.journal.storedBytes == 0)
    }

    @Test("A blocking delete waits for the change being written, then removes all it stored")
    func blockingDeleteWaitsForTheWrite() throws {
        let fixture = try Fixture()
        let changed = DispatchSemaphore(value: 0)
        fixture.changeHeld(done: changed)
        #expect(fixture.disk.waitUntilSyncing(), "the change is committed, its fsync held")

        // On a thread of its own, so that a delete that waited forever fails the test rather than hanging it.
        let deleted = DispatchSemaphore(value: 0)
        let store = fixture.store, id = fixture.id
        Thread {
            #expect((try? store.delete(id)) == true)
            deleted.signal()
        }.start()
        #expect(deleted.wait(timeout: .now() + 0.2) == .timedOut, "the delete waits for the change's turn")

        fixture.disk.release()
        #expect(changed.wait(timeout: .now() + 5) == .success)
        // A delete stuck for good holds the journal: closing it would hang the run, so it is left.
        guard deleted.wait(timeout: .now() + 5) == .success else {
            Issue.record("the delete never went through")
            return
        }
        #expect(fixture.store.count == 0)
        #expect(fixture.recovery.journal.storedBytes == 0)
        fixture.close()
    }
}

/// A sweep on a thread of its own, so that one that waits for the held disk fails the test
/// rather than hanging it (the disk is released only after the sweep is looked at).
private final class Sweep: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Int?>(nil)

    init(_ store: InMemorySessionStore, now: Date) {
        Thread { [self] in
            let count = (try? store.removeExpired(now: now)) ?? -1
            result.withLock { $0 = count }
            done.signal()
        }.start()
    }

    /// How many sessions the sweep removed (-1 when it failed), waiting up to `seconds` for it
    /// to end; nil when it has not ended by then.
    func count(within seconds: Double) -> Int? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        return result.withLock { $0 }
    }
}
