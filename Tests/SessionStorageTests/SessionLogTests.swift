import Foundation
import Presentation
import Testing

@testable import SessionStorage

/// `SessionLog` alone: which sessions a fold takes, and how far the log is cut.
@Suite("Log bookkeeping")
struct SessionLogTests {
    private static let lease = SessionLease(timeToLive: 60, lastAccess: StorageFixture.start)

    private static func session(_ number: Int) -> Session {
        Session(
            id: StorageFixture.id(number), token: SessionToken.random(), root: StorageFixture.spec("home"),
            now: StorageFixture.start)
    }

    /// Appends a row of `size` bytes saving each of `sessions`.
    private static func save(_ sessions: Session..., size: Int, in log: inout SessionLog) {
        let sequence = log.appendRow(size: size)
        for session in sessions {
            log.note(
                session.id, in: sequence,
                saving: SessionLog.SavedRow(
                    revision: session.revision, body: [], lease: lease, events: [],
                    eventsDroppedThrough: session.eventsDroppedThrough, tableDroppedThrough: 0),
                removed: false)
        }
    }

    @Test("A fold takes the sessions whose first unfolded row is oldest, and cuts the log to the next one's")
    func oldestFirst() {
        var log = SessionLog(next: 1)
        let (a, b, c) = (Self.session(1), Self.session(2), Self.session(3))
        Self.save(a, size: 100, in: &log)  // row 1
        Self.save(b, size: 100, in: &log)  // row 2
        Self.save(a, size: 100, in: &log)  // row 3: a is still unfolded since row 1
        Self.save(c, size: 100, in: &log)  // row 4
        #expect(log.unfolded[a.id]?.firstSequence == 1)
        #expect(log.bytes == 400)

        // Folding a frees row 1 only: row 2 is b's, and b is not folded.
        let plan = log.plan(toAtMost: 300, limit: 10)
        #expect(plan.ids == [a.id])
        #expect(plan.head == 2)
        log.folded(plan.ids, head: plan.head)
        #expect(log.bytes == 300)
        #expect(log.unfolded[a.id] == nil)

        // b goes next, and with it row 3 (a's, already folded): the head moves to c's row.
        let next = log.plan(toAtMost: 150, limit: 10)
        #expect(next.ids == [b.id])
        #expect(next.head == 4)
        log.folded(next.ids, head: next.head)
        #expect(log.bytes == 100)
        #expect(log.rows == 1)
    }

    @Test("A fold stops at its limit, and a session changed again after its fold starts a new first row")
    func limitAndRefold() {
        var log = SessionLog(next: 10)
        let sessions = (1...5).map(Self.session)
        for session in sessions { Self.save(session, size: 50, in: &log) }  // rows 10-14
        let plan = log.plan(toAtMost: 0, limit: 2)
        #expect(plan.ids == [sessions[0].id, sessions[1].id])
        #expect(plan.head == 12)
        log.folded(plan.ids, head: plan.head)
        Self.save(sessions[0], size: 50, in: &log)  // row 15
        #expect(log.unfolded[sessions[0].id]?.firstSequence == 15)
        #expect(log.plan(toAtMost: 0, limit: 10).ids == [sessions[2].id, sessions[3].id, sessions[4].id, sessions[0].id])
    }

    @Test("A row holds the entries of one commit: the log is cut past it only once all its sessions are folded")
    func sharedRow() {
        var log = SessionLog(next: 1)
        let (a, b, c) = (Self.session(1), Self.session(2), Self.session(3))
        Self.save(a, b, size: 200, in: &log)  // row 1: a commit of two changes
        Self.save(c, size: 100, in: &log)  // row 2
        #expect(log.unfolded[a.id]?.firstSequence == 1 && log.unfolded[b.id]?.firstSequence == 1)

        let one = log.plan(toAtMost: 250, limit: 1)
        #expect(one.ids == [a.id])
        #expect(one.head == 1, "b's change is in row 1 still")
        log.folded(one.ids, head: one.head)
        let next = log.plan(toAtMost: 250, limit: 1)
        #expect(next.ids == [b.id])
        #expect(next.head == 2, "cut to c's row")
        log.folded(next.ids, head: next.head)
        #expect(log.bytes == 100)
    }

    @Test("With no session left unfolded, the whole log is cut: its rows are removals and touches")
    func nothingToFold() {
        var log = SessionLog(next: 1)
        let session = Self.session(1)
        Self.save(session, size: 100, in: &log)
        log.note(session.id, in: log.appendRow(size: 20), saving: nil, removed: true)
        log.note(session.id, in: log.appendRow(size: 20), saving: nil, removed: false)
        let plan = log.plan(toAtMost: 0, limit: 10)
        #expect(plan.ids.isEmpty)
        #expect(plan.head == log.next)
        log.folded(plan.ids, head: plan.head)
        #expect(log.bytes == 0)
        #expect(log.rows == 0)
    }

    @Test("A touch moves an unfolded session's lease forward, never back")
    func touches() {
        var log = SessionLog(next: 1)
        let session = Self.session(1)
        Self.save(session, size: 10, in: &log)
        let later = SessionLease(timeToLive: 60, lastAccess: StorageFixture.start.addingTimeInterval(30))
        let touchedLater = log.touch(session.id, lease: later)
        let touchedEarlier = log.touch(session.id, lease: Self.lease)
        #expect(touchedLater && touchedEarlier)
        #expect(log.unfolded[session.id]?.lease == later)
        let touchedFolded = log.touch(Self.session(2).id, lease: later)
        #expect(!touchedFolded, "not unfolded: the table's row takes the touch")
    }
}
