import Foundation
import Presentation
import Testing

@testable import SessionStorage

import enum Presentation.Operation

@Suite("An upgraded file's inline events across a crash")
struct UpgradeCrashTests {
    /// A file of schema 1 (events inline in the row) opened, its session changed once (a pop,
    /// revision 3) and the server gone as a crash leaves it, before any fold.
    private static func changedThenCrashed(in directory: String) throws -> (changed: Session, before: (session: Session, lease: SessionLease, storedBytes: Int)) {
        let now = StorageFixture.start
        try StorageFixture.writeSchemaOneFile(in: directory, now: now)
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        let found = try #require(recovery.sessions.first)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { now })
        store.restore(found.session, lease: found.lease, storedBytes: found.storedBytes)
        let changed = try store.update(StorageFixture.formatOneID) { session in
            _ = try session.apply([Step(operation: .pop(result: nil))], at: now, limits: .default)
            return session
        }
        // A crash: nothing folded, nothing checkpointed.
        recovery.journal.abandon()
        return (changed, found)
    }

    @Test("A schema-1 row changed after the upgrade and crashed before its fold restarts with its whole history")
    func upgradedRowChangedThenCrash() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (changed, _) = try Self.changedThenCrashed(in: directory)
        #expect(changed.keptEvents.map(\.revision) == [1, 2, 3])
        guard let reopened = StorageFixture.reopen(directory) else { return }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session.keptEvents).map { $0.map(\.revision) } == [[1, 2, 3]])
        #expect(reopened.sessions.map(\.session) == [changed])
    }

    /// The same file as a server without the fix left it: the log's entry holds only the change's
    /// own events, the older ones being inline in the schema-1 row.
    @Test("A file an earlier server left so (the log holding only the new events) restarts with the whole history")
    func earlierServersFile() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (changed, found) = try Self.changedThenCrashed(in: directory)
        // The log's one entry as that server wrote it: the change's events alone.
        var entry = ByteWriter()
        SessionCodec.appendSaved(
            StorageFixture.formatOneID, revision: changed.revision, body: StorageFixture.formatFourRow(of: changed), lease: found.lease,
            events: SessionCodec.packEvents(of: changed, after: found.session.revision), to: &entry)
        let file = try StorageFixture.connection(directory)
        let update = try file.prepare("UPDATE log SET entries = ?1")
        try update.bind(.blob(entry.bytes))
        try update.run()
        #expect(try file.texts("SELECT count(*) FROM log") == ["1"])

        guard let reopened = StorageFixture.reopen(directory) else { return }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [changed])
        #expect(
            try StorageFixture.storedEventRevisions(of: StorageFixture.formatOneID, in: directory) == [1, 2, 3],
            "settled into chunks")
    }
}
