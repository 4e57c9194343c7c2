import Foundation
import Presentation
import Testing

@testable import SessionStorage

import enum Presentation.Operation

/// Events are rows of their own, so that a fold writes a session's new events, not its history.
/// These tests fold the log (`foldAll`) before they look at the tables.
@Suite("Stored events")
struct EventRowsTests {
    @Test("A fold writes a session's new events: its row stays the same size however long it lives")
    func rowsStaySmall() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let limits = Limits(eventsKept: 40)
        let recovery = try SessionDatabase.open(directory: directory, limits: limits, now: StorageFixture.start)
        let store = InMemorySessionStore(limits: limits, journal: recovery.journal)
        let id = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session.id
        var rowSizes: [Int] = []
        for round in 0..<60 {
            for operation in [Operation.push(StorageFixture.spec("item")), .pop(result: .string("r\(round)"))] {
                _ = try store.update(id) { session in
                    try session.apply([Step(operation: operation)], at: StorageFixture.start, limits: limits)
                }
            }
            if round % 20 == 19 {
                try recovery.journal.foldAll()
                rowSizes.append(try Self.rowSize(of: id, in: directory))
            }
        }
        let session = try #require(store.session(id))
        let storedBytes = store.storedBytes
        #expect(session.eventsDroppedThrough > 0, "the history was trimmed")
        // The revision, the last id issued and the trimmed revision each take a byte more as
        // they grow past 63; 40 events written inline would add some 700 bytes.
        #expect(rowSizes.max()! - rowSizes.min()! <= 3, "\(rowSizes)")
        #expect(try Self.eventRevisions(of: id, in: directory) == session.keptEvents.map(\.revision))
        recovery.journal.close()

        let reopened = try SessionDatabase.open(directory: directory, limits: limits, now: StorageFixture.start)
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [session])
        #expect(reopened.storedBytes == storedBytes)
    }

    /// Every change folded at once (a log of one byte), so that each revision's events are a
    /// chunk of their own; the last change left in the log (`inLog`) or folded with the rest.
    @Test(
        "A restart under a lower eventsKept deletes what it no longer keeps, and the next restart reads it back",
        arguments: [false, true])
    func restartKeepingFewer(inLog: Bool) throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (many, few) = (Limits(eventsKept: 40), Limits(eventsKept: 4))
        func open(_ limits: Limits, foldThreshold: Int) throws -> SessionDatabase.Recovery {
            try SessionDatabase.open(
                directory: directory, limits: limits, now: StorageFixture.start, foldThreshold: foldThreshold)
        }
        func change(_ store: InMemorySessionStore, _ id: SessionID, _ operation: Operation) throws {
            _ = try store.update(id) { session in
                try session.apply([Step(operation: operation)], at: StorageFixture.start, limits: many)
            }
        }
        let first = try open(many, foldThreshold: 1)
        let store = InMemorySessionStore(limits: many, journal: first.journal)
        let id = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session.id
        for round in 0..<6 {
            try change(store, id, .push(StorageFixture.spec("item")))
            try change(store, id, .pop(result: .string("r\(round)")))
        }
        first.journal.close()
        if inLog {
            let second = try open(many, foldThreshold: 1 << 20)
            let found = try #require(second.sessions.first)
            let again = InMemorySessionStore(limits: many, journal: second.journal)
            again.restore(found.session, lease: found.lease, storedBytes: found.storedBytes)
            try change(again, id, .push(StorageFixture.spec("last")))
            second.journal.abandon()
        }
        #expect(try StorageFixture.storedEventRevisions(of: id, in: directory).count >= 13)

        let trimmed = try open(few, foldThreshold: 1 << 20)
        let session = try #require(trimmed.sessions.first?.session)
        #expect(session.eventsDroppedThrough > 0 && session.keptEvents.count <= 4)
        trimmed.journal.close()
        // The chunks of events it dropped are gone, each chunk being one revision's.
        #expect(try StorageFixture.storedEventRevisions(of: id, in: directory) == session.keptEvents.map(\.revision))

        let reopened = try open(few, foldThreshold: 1 << 20)
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [session])
        #expect(reopened.storedBytes == trimmed.storedBytes)
    }

    @Test("Deleting a session deletes its events")
    func deleteRemovesEvents() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        defer { recovery.journal.close() }
        let store = InMemorySessionStore(journal: recovery.journal)
        let id = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session.id
        _ = try store.update(id) { session in
            try session.apply([Step(operation: .push(StorageFixture.spec("a")))], at: StorageFixture.start, limits: .default)
        }
        try recovery.journal.foldAll()
        #expect(try Self.eventRevisions(of: id, in: directory) == [1, 2])
        #expect(try store.delete(id))
        #expect(try Self.eventRevisions(of: id, in: directory).isEmpty, "deleted with the session, not at a fold")
        try recovery.journal.foldAll()
        #expect(try Self.connection(directory).texts("SELECT count(*) FROM log") == ["0"], "the deletion's row in the log is gone too")
    }

    /// A file of schema 1, as the previous server left it: one row of format 1, events inline.
    @Test("A file of the previous schema opens, and its row moves its events out when next written")
    func upgradeFromSchemaOne() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let path = (directory as NSString).appendingPathComponent(SessionDatabase.fileName)
        let now = StorageFixture.start
        try StorageFixture.writeSchemaOneFile(in: directory, now: now)
        let id = StorageFixture.formatOneID
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        let restored = try #require(recovery.sessions.first?.session)
        #expect(restored.keptEvents.map(\.revision) == [1, 2])
        #expect(try Self.eventRevisions(of: id, in: directory).isEmpty)
        #expect(try SQLiteConnection(path: path).texts("PRAGMA user_version") == ["\(SessionTable.schemaVersion)"])

        let store = InMemorySessionStore(journal: recovery.journal, clock: { now })
        let found = try #require(recovery.sessions.first)
        store.restore(restored, lease: found.lease, storedBytes: found.storedBytes)
        let changed = try store.update(id) { session in
            _ = try session.apply([Step(operation: .pop(result: nil))], at: now, limits: .default)
            return session
        }
        try recovery.journal.foldAll()
        #expect(try Self.eventRevisions(of: id, in: directory) == [1, 2, 3])
        recovery.journal.close()
        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: now)
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [changed])
    }

    private static func rowSize(of id: SessionID, in directory: String) throws -> Int {
        let rows = try connection(directory).texts("SELECT length(body) FROM sessions WHERE id = '\(id.rawValue)'")
        return try #require(rows.first.flatMap { Int($0) })
    }

    private static func eventRevisions(of id: SessionID, in directory: String) throws -> [Int] {
        try StorageFixture.storedEventRevisions(of: id, in: directory)
    }

    private static func connection(_ directory: String) throws -> SQLiteConnection {
        try StorageFixture.connection(directory)
    }
}
