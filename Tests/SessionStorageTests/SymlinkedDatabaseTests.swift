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
}
