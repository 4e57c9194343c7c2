import Dispatch
import Foundation
import Presentation
import Synchronization
import Testing

@testable import SessionStorage

import enum Presentation.Operation

/// Changes go to the log first and reach the sessions' rows when folded (`SessionLog`).
@Suite("Log of changes")
struct LogTests {
    @Test("A commit appends one row to the log; its sessions' rows and events are written when they are folded")
    func changesGoToTheLog() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        defer { recovery.journal.close() }
        let store = InMemorySessionStore(journal: recovery.journal)
        let id = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session.id
        for operation in [Operation.push(StorageFixture.spec("a")), .push(StorageFixture.spec("b")), .pop(result: nil)] {
            _ = try store.update(id) { session in
                try session.apply([Step(operation: operation)], at: StorageFixture.start, limits: .default)
            }
        }
        let file = try Self.connection(directory)
        // One row a commit; these four were committed one at a time.
        #expect(try file.texts("SELECT count(*) FROM log") == ["4"])
        #expect(try Self.savedRevisions(in: file) == [1, 2, 3, 4])
        #expect(try file.texts("SELECT count(*) FROM sessions") == ["0"])
        #expect(try file.texts("SELECT count(*) FROM event_chunks") == ["0"])

        try recovery.journal.foldAll()
        let session = try #require(store.session(id))
        #expect(try file.texts("SELECT count(*) FROM log") == ["0"])
        #expect(try file.texts("SELECT body FROM sessions").count == 1)
        #expect(try StorageFixture.storedEventRevisions(of: id, in: directory) == session.keptEvents.map(\.revision))
        #expect(try file.texts("SELECT count(*) FROM event_chunks") == ["1"], "one fold, one chunk")
    }

    /// The journal driven directly, with a log of a few KB so that sessions are folded every
    /// few changes, and history trimmed so that folds also delete events. After every step the
    /// log holds at most its threshold and one more row; every few steps the writer is stopped
    /// as a crash would stop it, and a restart must read back exactly what was acknowledged.
    /// With `fewerKept`, every other restart keeps 3 events instead of 6 (`--events-kept`
    /// lowered and raised again), so that restarts trim histories the file still holds.
    @Test(
        "After a crash at any point, a restart reads back every acknowledged state, lease and deletion",
        arguments: [false, true])
    func crashesAtAnyPoint(fewerKept: Bool) throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        var limits = Limits(eventsKept: 6)
        let threshold = 3_000
        var generator = SystemRandomNumberGenerator()
        func open() throws -> SessionDatabase.Recovery {
            try SessionDatabase.open(directory: directory, limits: limits, now: StorageFixture.start, foldThreshold: threshold)
        }
        var recovery = try open()
        // Each with the bytes the journal answered, which a store keeps and hands back.
        var expected: [SessionID: (session: Session, lease: SessionLease, bytes: Int)] = [:]
        var nextID = 0
        var moment = StorageFixture.start
        var crashes = 0
        for step in 1...600 {
            moment = moment.addingTimeInterval(1)
            let lease = SessionLease(timeToLive: 86_400, lastAccess: moment)
            let roll = Int.random(in: 0..<100, using: &generator)
            if expected.count < 3 || roll < 8 {
                nextID += 1
                let session = Session(
                    id: StorageFixture.id(nextID), token: SessionToken.random(), root: StorageFixture.spec("home"),
                    now: moment)
                let bytes = try recovery.journal.save(session, over: nil, lease: lease)
                expected[session.id] = (session, lease, bytes)
            } else if roll < 14 {
                let id = try #require(expected.keys.randomElement(using: &generator))
                let state = try #require(expected[id])
                try recovery.journal.remove([StoredSession(state.session, bytes: state.bytes)])
                expected[id] = nil
            } else if roll < 22 {
                let id = try #require(expected.keys.randomElement(using: &generator))
                try recovery.journal.touch([id: lease])
                expected[id]!.lease.lastAccess = moment
            } else {
                let id = try #require(expected.keys.randomElement(using: &generator))
                let previous = try #require(expected[id])
                var session = previous.session
                let operation: Operation =
                    session.root.path.count > 3 || (session.root.path.count > 1 && roll % 2 == 0)
                    ? .pop(result: .string("step \(step)")) : .push(StorageFixture.spec("s\(step)", params: StorageFixture.params))
                _ = try session.apply([Step(operation: operation)], at: moment, limits: limits)
                let bytes = try recovery.journal.save(
                    session, over: StoredSession(previous.session, bytes: previous.bytes), lease: lease)
                expected[id] = (session, lease, bytes)
            }
            #expect(recovery.journal.storedBytes == expected.values.reduce(0) { $0 + $1.bytes }, "step \(step)")
            // The fold after a commit runs before the next commit, so at most this step's row is unfolded.
            let logBytes = try Self.connection(directory).texts(
                "SELECT coalesce(sum(length(entries)), 0) + count(*) * \(SessionTable.logRowOverhead) FROM log")
            #expect(Int(logBytes.first ?? "") ?? .max <= threshold + 2_000, "step \(step): \(logBytes)")

            if step % 75 == 0 {
                recovery.journal.abandon()
                crashes += 1
                if fewerKept { limits = Limits(eventsKept: crashes % 2 == 1 ? 3 : 6) }
                recovery = try open()
                let found = Dictionary(uniqueKeysWithValues: recovery.sessions.map { ($0.session.id, $0) })
                #expect(Set(found.keys) == Set(expected.keys), "after crash \(crashes)")
                for (id, state) in expected {
                    // What was acknowledged, with the history the restart's limits keep of it.
                    let kept = try Session(
                        id: id, tokenDigest: state.session.tokenDigest, restoring: state.session.snapshot, limits: limits)
                    #expect(found[id]?.session == kept, "after crash \(crashes): \(id)")
                    #expect(found[id]?.lease == state.lease, "after crash \(crashes): \(id)")
                    if !fewerKept { #expect(found[id]?.storedBytes == state.bytes, "after crash \(crashes): \(id)") }
                    // Changed on from what was read back, as a store would.
                    if let back = found[id] { expected[id] = (back.session, back.lease, back.storedBytes) }
                }
                #expect(recovery.journal.storedBytes == recovery.storedBytes)
                #expect(try Self.connection(directory).texts("SELECT count(*) FROM log") == ["0"], "start-up folds the log")
            }
        }
        recovery.journal.close()
        #expect(crashes == 8)
    }

    @Test("A batch of more new sessions than one fold takes still leaves the log under twice its threshold")
    func foldsKeepUp() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let threshold = 4_000
        let recovery = try SessionDatabase.open(
            directory: directory, limits: .default, now: StorageFixture.start, foldThreshold: threshold)
        let lease = SessionLease(timeToLive: 86_400, lastAccess: StorageFixture.start)
        let sessions = (1...300).map { number in
            Session(id: StorageFixture.id(number), token: SessionToken.random(), root: StorageFixture.spec("home"),
                    now: StorageFixture.start)
        }
        // Queued without waiting, so that they share a few large batches: each new session is
        // its own oldest row, and a fold of `foldLimit` of them frees only that many rows.
        let written = DispatchGroup()
        let failures = Atomic<Int>(0)
        for session in sessions {
            written.enter()
            recovery.journal.save(session, over: nil, lease: lease) { outcome in
                if case .failure = outcome { failures.add(1, ordering: .relaxed) }
                written.leave()
            }
        }
        written.wait()
        // Committed after the folds that followed the last batch.
        try recovery.journal.touch([sessions[0].id: lease])
        #expect(failures.load(ordering: .relaxed) == 0)
        let logBytes = try Self.connection(directory).texts(
            "SELECT coalesce(sum(length(entries)), 0) + count(*) * \(SessionTable.logRowOverhead) FROM log")
        #expect(Int(logBytes.first ?? "") ?? .max <= 2 * threshold + 1_000, "\(logBytes)")

        recovery.journal.abandon()
        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        defer { reopened.journal.close() }
        let found = Dictionary(uniqueKeysWithValues: reopened.sessions.map { ($0.session.id, $0.session) })
        #expect(found.count == sessions.count)
        #expect(sessions.allSatisfy { found[$0.id] == $0 }, "every session comes back as written")
    }

    /// No session is then unfolded, so no fold can cut the log: the rows are no one's, and go.
    @Test("A burst of deletions larger than the log's threshold is cut away, not folded forever")
    func deletionBurst() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let threshold = 1_000
        let recovery = try SessionDatabase.open(
            directory: directory, limits: .default, now: StorageFixture.start, foldThreshold: threshold)
        defer { recovery.journal.close() }
        let lease = SessionLease(timeToLive: 86_400, lastAccess: StorageFixture.start)
        var saved: [StoredSession] = []
        for number in 1...150 {
            let session = Session(
                id: StorageFixture.id(number), token: SessionToken.random(), root: StorageFixture.spec("home"),
                now: StorageFixture.start)
            saved.append(StoredSession(session, bytes: try recovery.journal.save(session, over: nil, lease: lease)))
        }
        // One write, 150 removals: more than twice the threshold of rows, none of them a session's state.
        let removed = DispatchSemaphore(value: 0)
        recovery.journal.remove(saved) { error in
            #expect(error == nil)
            removed.signal()
        }
        #expect(removed.wait(timeout: .now() + 5) == .success)
        // Answered only if the writer, after its folds, took the next write.
        let touched = DispatchSemaphore(value: 0)
        let survivor = Session(
            id: StorageFixture.id(999), token: SessionToken.random(), root: StorageFixture.spec("home"),
            now: StorageFixture.start)
        recovery.journal.save(survivor, over: nil, lease: lease) { _ in touched.signal() }
        #expect(touched.wait(timeout: .now() + 5) == .success, "the writer is not stuck folding")
        let rows = try Self.connection(directory).texts("SELECT count(*) FROM log")
        #expect(Int(rows.first ?? "") ?? .max <= 2, "only the survivor's row, and maybe the removals': \(rows)")
    }

    @Test("A file of schema 2 gains the log, and its rows of events become one chunk a session")
    func upgradeFromSchemaTwo() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let start = StorageFixture.start
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: start)
        let store = InMemorySessionStore(journal: first.journal, clock: { start })
        let id = try store.create(root: StorageFixture.spec("home"), now: start).session.id
        let session = try store.update(id) { session in
            _ = try session.apply([Step(operation: .push(StorageFixture.spec("a")))], at: start, limits: .default)
            _ = try session.apply([Step(operation: .push(StorageFixture.spec("b")))], at: start, limits: .default)
            return session
        }
        first.journal.close()
        // What schema 2 was: the sessions' rows as they are, and a row for each event.
        let file = try Self.connection(directory)
        try file.execute(
            """
            DROP TABLE log; DROP TABLE event_chunks;
            CREATE TABLE events (session TEXT NOT NULL, revision INTEGER NOT NULL, position INTEGER NOT NULL,
                body BLOB NOT NULL, PRIMARY KEY (session, revision, position)) WITHOUT ROWID;
            PRAGMA user_version = 2;
            """)
        let insert = try file.prepare("INSERT INTO events VALUES (?1, ?2, ?3, ?4)")
        for (position, event) in session.keptEvents.enumerated() {
            let record = StorageFixture.eventRows(of: session)[position]
            try insert.bind(.text(id.rawValue), .integer(event.revision), .integer(position), .blob(record))
            try insert.run()
        }

        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: start)
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [session])
        #expect(try file.texts("PRAGMA user_version") == ["\(SessionTable.schemaVersion)"])
        #expect(try file.texts("SELECT count(*) FROM event_chunks") == ["1"])
        #expect(try StorageFixture.storedEventRevisions(of: id, in: directory) == session.keptEvents.map(\.revision))
        #expect(try file.texts("SELECT name FROM sqlite_schema WHERE name = 'events'").isEmpty)
    }

    /// Schema 3 logged a row a change. A server that crashed leaves such rows unfolded; the
    /// upgrade turns each into a row of one entry, and start-up reads them as any other.
    @Test("A file of schema 3 with rows left in its log opens with every logged state, touch and deletion")
    func upgradeFromSchemaThree() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let start = StorageFixture.start
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: start)
        let store = InMemorySessionStore(journal: first.journal, clock: { start })
        let kept = try store.create(root: StorageFixture.spec("home"), now: start).session.id
        let deleted = try store.create(root: StorageFixture.spec("home"), now: start).session.id
        try first.journal.foldAll()
        // In the log only: a change of a folded session, a new session, a touch and a deletion.
        let changed = try store.update(kept) { session in
            _ = try session.apply([Step(operation: .push(StorageFixture.spec("a")))], at: start, limits: .default)
            return session
        }
        let added = try store.create(root: StorageFixture.spec("other"), now: start).session
        let later = SessionLease(timeToLive: 60, lastAccess: start.addingTimeInterval(30))
        try first.journal.touch([added.id: later])
        #expect(try store.delete(deleted))
        first.journal.abandon()

        // The same rows as schema 3 held them: a row each, in the same order.
        let file = try Self.connection(directory)
        var rows: [SessionCodec.LogEntry] = []
        let select = try file.prepare("SELECT entries FROM log ORDER BY seq")
        while try select.step() { rows += try SessionCodec.logEntries(select.blob(0)) }
        #expect(rows.count == 4)
        try file.execute(
            """
            DROP TABLE log;
            CREATE TABLE log (seq INTEGER PRIMARY KEY, session TEXT NOT NULL, kind INTEGER NOT NULL,
                revision INTEGER NOT NULL, body BLOB NOT NULL, last_access REAL NOT NULL, ttl INTEGER NOT NULL,
                events BLOB NOT NULL);
            PRAGMA user_version = 3;
            """)
        let insert = try file.prepare("INSERT INTO log VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        for (sequence, entry) in rows.enumerated() {
            let values: [SQLiteValue]
            switch entry {
            case .saved(let rawID, let revision, let body, let lease, let events):
                values = [
                    .text(rawID), .integer(0), .integer(revision), .blob(body), .real(lease.lastAccess.timeIntervalSince1970),
                    .integer(lease.timeToLive), .blob(events),
                ]
            case .touched(let rawID, let lease):
                values = [
                    .text(rawID), .integer(1), .integer(0), .blob([]), .real(lease.lastAccess.timeIntervalSince1970),
                    .integer(lease.timeToLive), .blob([]),
                ]
            case .removed(let rawID):
                values = [.text(rawID), .integer(2), .integer(0), .blob([]), .real(0), .integer(0), .blob([])]
            }
            try insert.bind(.integer(sequence + 1), values[0], values[1], values[2], values[3], values[4], values[5], values[6])
            try insert.run()
        }

        let reopened = try SessionDatabase.open(directory: directory, limits: .default, now: start)
        defer { reopened.journal.close() }
        let found = Dictionary(uniqueKeysWithValues: reopened.sessions.map { ($0.session.id, $0) })
        #expect(Set(found.keys) == [kept, added.id])
        #expect(found[kept]?.session == changed)
        #expect(found[added.id]?.session == added)
        #expect(found[added.id]?.lease.lastAccess == later.lastAccess)
        #expect(try file.texts("PRAGMA user_version") == ["\(SessionTable.schemaVersion)"])
        #expect(try file.texts("SELECT name FROM sqlite_schema WHERE name = 'log_v3'").isEmpty)
        #expect(try file.texts("SELECT count(*) FROM log") == ["0"], "start-up folded what the old log held")
    }

    @Test("A log row that does not read back refuses start-up as corruption, naming the row")
    func corruptLogRow() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        let store = InMemorySessionStore(journal: first.journal)
        _ = try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start)
        first.journal.abandon()
        // A stray byte after the row's one entry: the start of an entry that is not there.
        let file = try Self.connection(directory)
        try file.execute("UPDATE log SET entries = entries || x'07'")
        Self.expectRefusedAsCorrupt(directory, naming: "log row 1")
    }

    @Test("A chunk of events that does not read back refuses start-up as corruption, naming its session")
    func corruptChunk() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let first = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        let store = InMemorySessionStore(journal: first.journal)
        let ids = try (0..<3).map { _ in
            try store.create(root: StorageFixture.spec("home"), now: StorageFixture.start).session.id
        }
        // Closed cleanly, so every session's events are in chunks, which start-up reads in one scan.
        first.journal.close()
        let file = try Self.connection(directory)
        try file.execute("UPDATE event_chunks SET body = body || x'07' WHERE session = '\(ids[1].rawValue)'")
        Self.expectRefusedAsCorrupt(directory, naming: "a chunk of events of session \(ids[1].rawValue)")
    }

    /// Expects start-up on `directory` to refuse the file as corrupt, its details containing `detail`.
    private static func expectRefusedAsCorrupt(
        _ directory: String, naming detail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try SessionDatabase.open(directory: directory, limits: .default, now: StorageFixture.start)
        } throws: { error in
            guard case StorageOpenError.corrupt(_, let details) = error else { return false }
            return details.contains(detail)
        }
    }

    private static func connection(_ directory: String) throws -> SQLiteConnection {
        try SQLiteConnection(path: (directory as NSString).appendingPathComponent(SessionDatabase.fileName))
    }

    /// The revision of every saved state in the log, in order.
    private static func savedRevisions(in file: SQLiteConnection) throws -> [Int] {
        let rows = try file.prepare("SELECT entries FROM log ORDER BY seq")
        var revisions: [Int] = []
        while try rows.step() {
            for entry in try SessionCodec.logEntries(rows.blob(0)) {
                if case .saved(_, let revision, _, _, _) = entry { revisions.append(revision) }
            }
        }
        return revisions
    }
}

/// What a refusal of a damaged file quotes of SQLite's own check.
@Suite("quick_check's complaints in a refusal")
struct QuickCheckSummaryTests {
    @Test("Complaints in rows or in lines of one row are cut to three, with how many more")
    func cutToThree() {
        let lines = (1...5).map { "Page \($0): btreeInitPage() returns error code 11" }
        let expected = lines.prefix(3).joined(separator: "; ") + "; and 2 more"
        #expect(SessionDatabase.quickCheckSummary([lines.joined(separator: "\n")]) == expected)
        #expect(SessionDatabase.quickCheckSummary(lines) == expected)
        #expect(SessionDatabase.quickCheckSummary(["*** in database main ***", "Page 4: bad"]) == "*** in database main ***; Page 4: bad")
    }
}
