import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

@testable import SessionStorage

/// Commits write the log without an fsync; `SyncQueue` fsyncs it before any write is answered.
@Suite("Syncing the log")
struct SyncTests {
    @Test("A committed write is answered only after the log's fsync, and writes made meanwhile commit without waiting for it")
    func answeredAfterSync() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let disk = HeldDisk(holdingFirst: true)
        let recovery = try SessionDatabase.open(
            directory: directory, limits: .default, now: StorageFixture.start, sync: { disk.sync($0) })
        defer { recovery.journal.close() }
        let lease = SessionLease(timeToLive: 86_400, lastAccess: StorageFixture.start)
        let sessions = (1...2).map { number in
            Session(
                id: StorageFixture.id(number), token: SessionToken.random(), root: StorageFixture.spec("home"),
                now: StorageFixture.start)
        }
        let answered = Atomic<Int>(0)
        let bothAnswered = DispatchSemaphore(value: 0)
        func save(_ session: Session) {
            recovery.journal.save(session, over: nil, lease: lease) { outcome in
                #expect((try? outcome.get()) != nil)
                if answered.add(1, ordering: .relaxed).newValue == 2 { bothAnswered.signal() }
            }
        }

        save(sessions[0])
        #expect(try Self.waitForLogRows(1, in: directory), "the first write is committed")
        #expect(disk.waitUntilSyncing(), "and its fsync has begun")
        save(sessions[1])
        #expect(try Self.waitForLogRows(2, in: directory), "the second commits while the first fsync is held")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(answered.load(ordering: .relaxed) == 0, "neither is answered before an fsync returns")

        disk.release()
        #expect(bothAnswered.wait(timeout: .now() + 5) == .success)
        #expect(recovery.journal.statistics.syncs >= 2, "the second write needed an fsync begun after its commit")
    }

    @Test("Writes that sync are not stopped")
    func writesGoOn() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        defer { recovery.journal.close() }
        _ = try InMemorySessionStore(journal: recovery.journal).create(root: StorageFixture.spec("home"), now: StorageFixture.start)
        #expect(!recovery.journal.statistics.writesStopped)
    }

    @Test("An fsync that fails fails the writes waiting on it, and every write after it until a restart")
    func failedSync() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(
            directory: directory, limits: .default, now: StorageFixture.start, sync: { _ in EIO })
        defer { recovery.journal.close() }
        let store = InMemorySessionStore(journal: recovery.journal)
        #expect {
            try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start)
        } throws: { error in
            guard case PresentationError.storageFailed(let reason) = error else { return false }
            return reason.contains("could not sync")
        }
        #expect(store.count == 0, "a write that is not durable is not made")
        #expect(recovery.journal.statistics.writesStopped, "health checks read this to fail")
        let syncs = recovery.journal.statistics.syncs
        #expect(throws: PresentationError.self) {
            try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start)
        }
        #expect(recovery.journal.statistics.syncs == syncs, "refused before it reached the file")
        #expect(store.count == 0)
    }

    /// Waits up to 5 seconds for the log table to hold `count` rows, read through a connection
    /// of its own: what another reader of the file (or a restart after a crash) would see.
    private static func waitForLogRows(_ count: Int, in directory: String) throws -> Bool {
        let file = try SQLiteConnection(path: (directory as NSString).appendingPathComponent(SessionDatabase.fileName))
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if try file.texts("SELECT count(*) FROM log") == ["\(count)"] { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }
}
