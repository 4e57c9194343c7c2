import Foundation
import Presentation
import Testing

@testable import SessionStorage

@Suite("A database file that is a symbolic link")
struct SymlinkedDatabaseTests {
    /// The database kept on another volume and linked into the data directory: SQLite follows
    /// the link and keeps its write-ahead log beside the target. The journal must fsync that log.
    @Test("A data directory whose sessions.sqlite3 is a symbolic link opens, and what it writes comes back")
    func linkedDatabaseFile() throws {
        let root = StorageFixture.directory()
        defer { StorageFixture.remove(root) }
        let (directory, _) = try StorageFixture.linkedDatabase(in: root)
        let recovery: SessionDatabase.Recovery
        do {
            recovery = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        } catch {
            Issue.record("the data directory was refused: \(error)")
            return
        }
        let store = InMemorySessionStore(journal: recovery.journal, clock: { StorageFixture.start })
        let session = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session
        #expect(recovery.journal.statistics.syncs >= 1)
        recovery.journal.abandon()
        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [session])
    }

    /// Each data directory has its own lock file: two linking to one database both took theirs,
    /// and two servers then loaded, changed and wrote the same file.
    @Test("A second data directory linking to a database in use is refused, naming the holder")
    func secondLinkRefused() throws {
        let root = StorageFixture.directory()
        defer { StorageFixture.remove(root) }
        let (directory, target) = try StorageFixture.linkedDatabase(in: root)
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        let other = root + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: other + "/" + SessionDatabase.fileName, withDestinationPath: target + "/" + SessionDatabase.fileName)
        #expect {
            _ = try SessionDatabase.open(directory: other, limits: .default, now: StorageFixture.start)
        } throws: { error in
            guard case StorageOpenError.inUse(_, let holder) = error else { return false }
            return holder == getpid()
        }
        // So is the database's own directory, opened as a data directory.
        #expect(throws: StorageOpenError.self) {
            _ = try SessionDatabase.open(directory: target, limits: .default, now: StorageFixture.start)
        }
        // Once the first closes, the other directory opens, and its own lock is free again after.
        first.journal.close()
        let second = try SessionDatabase.open(directory: other, limits: .default, now: StorageFixture.start)
        second.journal.close()
        let again = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        again.journal.close()
    }
}
