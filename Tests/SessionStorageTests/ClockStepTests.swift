import Foundation
import Presentation
import Testing

@testable import SessionStorage

import enum Presentation.Operation

@Suite("A wall clock stepped back")
struct ClockStepTests {
    /// The server stamps a change with the wall clock (`Date()`), which NTP, a VM's resume or an
    /// operator may step back. A change made just after such a step is earlier than its session's
    /// creation; the server takes it, writes it and answers 200, and must read it back after a restart.
    @Test("A session changed at a time before its creation is written and read back after a restart")
    func changeStampedBeforeCreation() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let created = StorageFixture.start
        let stepped = created.addingTimeInterval(-0.25)
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: created)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { stepped })
        let id = try store.create(root: StorageFixture.spec("home"), now: created).session.id
        let changed = try store.update(id) { session in
            _ = try session.apply([Step(operation: .push(StorageFixture.spec("next")))], at: stepped, limits: .default)
            return session
        }
        #expect(store.session(id) == changed, "the change was made and answered")
        recovery.journal.close()
        guard let reopened = StorageFixture.reopen(directory) else { return }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [changed])
    }
}

extension ClockStepTests {
    /// A row an earlier server wrote for such a session: `updatedAt` before `createdAt`.
    @Test("A stored session whose updatedAt is before its createdAt (written by an earlier server) still loads")
    func earlierServersRow() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let created = StorageFixture.start
        let recovery = try SessionDatabase.open(directory: directory, limits: .default, now: created)
        let store = InMemorySessionStore(journal: recovery.journal, clock: { created })
        let session = try store.create(root: StorageFixture.spec("home"), now: created).session
        try recovery.journal.foldAll()
        recovery.journal.close()
        // The row's updatedAt, as a server that let it go back wrote it.
        var body = StorageFixture.formatFourRow(of: session)
        let bits = Array(withUnsafeBytes(of: created.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { Array($0) })
        let earlier = Array(
            withUnsafeBytes(of: created.addingTimeInterval(-5).timeIntervalSinceReferenceDate.bitPattern.littleEndian) { Array($0) })
        let createdAt = try #require((0...(body.count - 16)).first { Array(body[$0..<$0 + 8]) == bits })
        #expect(Array(body[createdAt + 8..<createdAt + 16]) == bits, "updatedAt follows createdAt")
        body.replaceSubrange(createdAt + 8..<createdAt + 16, with: earlier)
        let file = try StorageFixture.connection(directory)
        let update = try file.prepare("UPDATE sessions SET body = ?1")
        try update.bind(.blob(body))
        try update.run()

        guard let reopened = StorageFixture.reopen(directory) else { return }
        defer { reopened.journal.close() }
        #expect(reopened.sessions.map(\.session) == [session])
    }
}
