import Dispatch
import Foundation
import JSON
import Presentation
import Synchronization
import Testing

@testable import SessionStorage

import enum Presentation.Operation

@Suite("SQLite journal")
struct JournalTests {
    @Test("Writes queued while a transaction waits on the disk share the next one, and each is on disk when its update returns")
    func groupCommit() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        let store = InMemorySessionStore(journal: recovery.journal)
        let writers = 32
        let rounds = 10
        // One session a writer: no writer waits on another's session lock, only on the journal.
        let ids = try (0..<writers).map { _ in try store.create(root: StorageFixture.spec("home"), now: Date()).session.id }
        let before = recovery.journal.statistics

        // A second connection holds SQLite's write lock, as a slow disk would: the writer's next
        // transaction waits on it (busy_timeout), and every write made meanwhile must queue behind it.
        // Timing alone cannot show grouping: on two cores with a fast fsync, writes can take turns.
        let blocker = try SQLiteConnection(path: recovery.journal.path)
        try blocker.execute("BEGIN IMMEDIATE")
        let failures = Atomic<Int>(0)
        let finished = DispatchGroup()
        for (writer, id) in ids.enumerated() {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                for round in 0..<rounds {
                    do {
                        _ = try store.update(id) { session in
                            try session.apply(
                                [Step(operation: .push(StorageFixture.spec("screen-\(writer)-\(round)")))], at: Date(),
                                limits: .default)
                        }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            thread.start()
        }
        // Each writer's first write is either in the stuck transaction or queued behind it.
        func held() -> Int { recovery.journal.statistics.writes - before.writes + recovery.journal.statistics.queuedWrites }
        let deadline = ContinuousClock.now + .seconds(4)
        while held() < writers && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        let heldBehindTheLock = held()
        try blocker.execute("COMMIT")
        finished.wait()

        #expect(heldBehindTheLock == writers)
        #expect(failures.load(ordering: .relaxed) == 0)
        let after = recovery.journal.statistics
        let writes = after.writes - before.writes
        let transactions = after.transactions - before.transactions
        #expect(writes == writers * rounds)
        // The first writes went in at most two transactions (the stuck one, then all queued behind
        // it), so there are at least writers - 2 fewer transactions than writes.
        #expect(transactions <= writes - (writers - 2), "\(transactions) transactions for \(writes) writes")
        let memory = ids.map { store.session($0) }
        recovery.journal.close()

        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        defer { reopened.journal.close() }
        let disk = Dictionary(uniqueKeysWithValues: reopened.sessions.map { ($0.session.id, $0.session) })
        #expect(disk.count == ids.count)
        for session in memory {
            let session = try #require(session)
            #expect(session.root.path.count == 1 + rounds)
            #expect(disk[session.id] == session)
        }
    }

    @Test("The log is folded into the file only every walCheckpointPages pages, and all of it comes back on restart")
    func rareCheckpoints() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        let store = InMemorySessionStore(journal: recovery.journal)
        // A root screen of 40 KB of params: its row spans ten pages and more, each rewritten by
        // every change, so a few hundred changes write more log than SQLite's default 1,000 pages.
        let text = JSONValue.string(String(repeating: "x", count: 40_000))
        let bulky = StorageFixture.spec("home", params: .object([JSONMember("text", text)]))
        let id = try store.create(root: bulky, now: Date()).session.id
        let frame = 24 + 4096
        let walPath = recovery.journal.path + "-wal"
        func walFrames() -> Int {
            let size = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0
            return max(0, size - 32) / frame
        }
        var changes = 0
        // SQLite checkpoints at the first commit past the threshold and then writes the log from
        // its start again, so under the default the file never holds much more than 1,000 frames.
        while walFrames() <= 1_500, changes < 400 {
            _ = try store.update(id) { session in
                let operation: Operation = changes % 2 == 0 ? .push(StorageFixture.spec("detail")) : .pop(result: nil)
                _ = try session.apply([Step(operation: operation)], at: Date(), limits: .default)
            }
            changes += 1
        }
        #expect(walFrames() > 1_500, "\(walFrames()) frames of log after \(changes) changes")
        #expect(walFrames() < SessionDatabase.walCheckpointPages)
        let expected = store.session(id)
        // Not closed: a crash leaves the log as it is, and a restart must replay all of it.
        recovery.journal.abandon()
        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [try #require(expected)])
    }

    @Test("A full disk fails the change with storageFull and leaves the session exactly as it was")
    func fullDisk() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        // 40 pages of 4 KiB: room for a few sessions and little more.
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: Date(), maxPageCount: 40)
        let store = InMemorySessionStore(journal: recovery.journal)
        let id = try store.create(root: StorageFixture.spec("home"), now: Date()).session.id
        let big = JSONValue.object([JSONMember("blob", .string(String(repeating: "x", count: 20_000)))])
        var failure: PresentationError?
        var before: Session?
        var bytesWritten = 0
        for round in 0..<40 {
            before = store.session(id)
            bytesWritten = store.storedBytes
            do {
                _ = try store.update(id) { session in
                    try session.apply(
                        [Step(operation: .push(StorageFixture.spec("big-\(round)", params: big)))], at: Date(),
                        limits: .default)
                }
            } catch let error as PresentationError {
                failure = error
                break
            }
        }
        #expect(failure == .storageFull)
        #expect(store.session(id) == before, "a change that could not be written must not be made")
        #expect(store.storedBytes == bytesWritten, "nor counted in the stored bytes")
        let count = store.count
        let huge = JSONValue.object([JSONMember("blob", .string(String(repeating: "y", count: 400_000)))])
        #expect(throws: PresentationError.storageFull) {
            try store.create(root: StorageFixture.spec("home", params: huge), now: Date())
        }
        #expect(store.count == count)
        recovery.journal.close()

        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [before])
    }

    @Test("Start-up drops sessions whose lease ran out, and keeps the others with their leases")
    func expiredAtStartup() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let start = StorageFixture.start
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: start)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { start })
        let short = try store.create(root: StorageFixture.spec("a"), timeToLive: 10, now: start).session
        let long = try store.create(root: StorageFixture.spec("b"), timeToLive: 100, now: start).session
        recovery.journal.close()

        let later = try SessionDatabase.open(directory: directory, limits: .default, now: start.addingTimeInterval(50))
        #expect(later.expired == 1)
        #expect(later.sessions.map(\.session) == [long])
        #expect(later.sessions.first?.lease == SessionLease(timeToLive: 100, lastAccess: start))
        later.journal.close()
        let again = try SessionDatabase.open(directory: directory, limits: .default, now: start.addingTimeInterval(50))
        defer { again.journal.close() }
        #expect(again.expired == 0, "the expired row was removed from the file")
        #expect(!again.sessions.contains { $0.session.id == short.id })
    }

    @Test("Deleting removes the row; a restart does not bring the session back")
    func deleteIsDurable() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        let store = InMemorySessionStore(journal: recovery.journal)
        let kept = try store.create(root: StorageFixture.spec("a"), now: Date()).session
        let deleted = try store.create(root: StorageFixture.spec("b"), now: Date()).session
        #expect(try store.delete(deleted.id))
        #expect(store.storedBytes == SessionTable.storedSize(of: kept, body: SessionCodec.encode(kept)))
        recovery.journal.close()
        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [kept])
    }

    /// A session made and stored in `directory`, its journal closed, and a connection to the
    /// file for a test to damage it through.
    private static func oneStoredSession(in directory: String) throws -> (Session, SQLiteConnection) {
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        let store = InMemorySessionStore(journal: recovery.journal)
        let session = try store.create(root: StorageFixture.spec("a"), now: Date()).session
        recovery.journal.close()
        return (session, try SQLiteConnection(path: directory + "/" + SessionDatabase.fileName))
    }

    /// Cut short, the row no longer matches its checksum: corruption. Sealed again (as a
    /// server with a bug could have written it), it matches, and decoding refuses it.
    @Test("A row whose bytes do not decode stops start-up with a message naming the session")
    func damagedRow() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (session, connection) = try Self.oneStoredSession(in: directory)
        try connection.execute("UPDATE sessions SET body = substr(body, 1, 20)")
        #expect {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        } throws: { error in
            guard case StorageOpenError.corrupt(_, let details) = error else { return false }
            return details.contains("session \(session.id.rawValue), its row in the sessions table")
                && details.contains("checksum")
        }
        let cut = try #require(try connection.texts("SELECT hex(body) FROM sessions").first.flatMap(StorageFixture.bytes(hex:)))
        var resealed = ByteWriter()
        resealed.raw(cut[...])
        resealed.seal()
        let update = try connection.prepare("UPDATE sessions SET body = ?1")
        try update.bind(.blob(resealed.bytes))
        try update.run()
        #expect {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        } throws: { error in
            guard case StorageOpenError.invalidSession(_, let id, _) = error else { return false }
            return id == session.id.rawValue
        }
    }

    /// A lease is two columns beside the row's bytes; damaged, it made the session look expired,
    /// and start-up removed it as such, quietly, rather than refuse the file.
    @Test(
        "A row whose lease is damaged stops start-up naming the session, rather than drop it as expired",
        arguments: ["ttl = -5", "ttl = 0", "last_access = 'garbage'", "last_access = x'00'", "last_access = 1e999"])
    func damagedLease(damage: String) throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (session, connection) = try Self.oneStoredSession(in: directory)
        try connection.execute("UPDATE sessions SET \(damage)")
        #expect {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        } throws: { error in
            guard case StorageOpenError.corrupt(_, let details) = error else { return false }
            return details.contains(session.id.rawValue) && details.contains("lease")
        }
    }

    @Test("A data directory open in one journal is refused to a second, naming the holder, until the first closes")
    func directoryInUse() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        let store = InMemorySessionStore(journal: first.journal)
        let session = try store.create(root: StorageFixture.spec("home"), now: Date()).session
        #expect {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        } throws: { error in
            guard case StorageOpenError.inUse(_, let holder) = error else { return false }
            return holder == getpid() && "\(error)".contains("in use")
        }
        // The refusal changed nothing: the first journal still writes, and closing it lets the next one in.
        _ = try store.update(session.id) { try $0.apply([Step(operation: .push(StorageFixture.spec("next")))], at: Date(), limits: .default) }
        first.journal.close()
        let second = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        defer { second.journal.close() }
        #expect(second.sessions.map(\.session.revision) == [2])
    }

    @Test("A file that is not ours is refused, not overwritten")
    func foreignFile() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let connection = try SQLiteConnection(path: directory + "/" + SessionDatabase.fileName)
        try connection.execute("CREATE TABLE notes (text TEXT)")
        #expect {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: Date())
        } throws: { error in
            if case StorageOpenError.unknownFormat = error { return true }
            return false
        }
    }
}
