import Foundation
import Presentation
import Testing

@testable import SessionStorage

import enum Presentation.Operation

@Suite("An upgraded file's inline events across a crash")
struct UpgradeCrashTests {
    /// A file of schema 1 (events inline in the row), changed once after the upgrade and left as a
    /// crash leaves it, before any fold: the restart must read back the change, history and all.
    @Test("A schema-1 row changed after the upgrade and crashed before its fold restarts with its whole history")
    func upgradedRowChangedThenCrash() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let path = (directory as NSString).appendingPathComponent(SessionDatabase.fileName)
        let now = StorageFixture.start
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(
                """
                CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL, last_access REAL NOT NULL,
                    ttl INTEGER NOT NULL);
                PRAGMA application_id = \(SessionTable.applicationID); PRAGMA user_version = 1;
                INSERT INTO sessions VALUES ('EnLR32oUuZg038pWehAL_w', x'\(StorageFixture.formatOneRow)', \(now.timeIntervalSince1970), 86400);
                """)
        }
        let id = try #require(SessionID(rawValue: "EnLR32oUuZg038pWehAL_w"))
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        let found = try #require(recovery.sessions.first)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { now })
        store.restore(found.session, lease: found.lease, storedBytes: found.storedBytes)
        let changed = try store.update(id) { session in
            _ = try session.apply([Step(operation: .pop(result: nil))], at: now, limits: .default)
            return session
        }
        #expect(changed.keptEvents.map(\.revision) == [1, 2, 3])
        // A crash: nothing folded, nothing checkpointed.
        recovery.journal.abandon()
        let reopened: SessionDatabase.Recovery
        do {
            reopened = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        } catch {
            Issue.record("the restart failed: \(error)")
            return
        }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session.keptEvents).map { $0.map(\.revision) } == [[1, 2, 3]])
        #expect(reopened.sessions.map(\.session) == [changed])
    }
}

extension UpgradeCrashTests {
    /// The same file as a server without the fix left it: the log's entry holds only the change's
    /// own events, the older ones being inline in the schema-1 row.
    @Test("A file an earlier server left so (the log holding only the new events) restarts with the whole history")
    func earlierServersFile() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let path = (directory as NSString).appendingPathComponent(SessionDatabase.fileName)
        let now = StorageFixture.start
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(
                """
                CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL, last_access REAL NOT NULL,
                    ttl INTEGER NOT NULL);
                PRAGMA application_id = \(SessionTable.applicationID); PRAGMA user_version = 1;
                INSERT INTO sessions VALUES ('EnLR32oUuZg038pWehAL_w', x'\(StorageFixture.formatOneRow)', \(now.timeIntervalSince1970), 86400);
                """)
        }
        let id = try #require(SessionID(rawValue: "EnLR32oUuZg038pWehAL_w"))
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        let found = try #require(recovery.sessions.first)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { now })
        store.restore(found.session, lease: found.lease, storedBytes: found.storedBytes)
        let changed = try store.update(id) { session in
            _ = try session.apply([Step(operation: .pop(result: nil))], at: now, limits: .default)
            return session
        }
        recovery.journal.abandon()
        // The log's one entry as that server wrote it: the change's events alone.
        var entry = ByteWriter()
        SessionCodec.appendSaved(
            id, revision: changed.revision, body: SessionCodec.encode(changed), lease: found.lease,
            events: SessionCodec.packEvents(of: changed, after: found.session.revision), to: &entry)
        let file = try StorageFixture.connection(directory)
        let update = try file.prepare("UPDATE log SET entries = ?1")
        try update.bind(.blob(entry.bytes))
        try update.run()
        #expect(try file.texts("SELECT count(*) FROM log") == ["1"])

        let reopened: SessionDatabase.Recovery
        do {
            reopened = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        } catch {
            Issue.record("the restart failed: \(error)")
            return
        }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [changed])
        #expect(try StorageFixture.storedEventRevisions(of: id, in: directory) == [1, 2, 3], "settled into chunks")
    }
}
