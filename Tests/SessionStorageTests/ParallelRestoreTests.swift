import Foundation
import Presentation
import Testing

@testable import SessionStorage

/// Start-up restores sessions on every core the process may use (`SessionDatabase.restoreAll`).
@Suite("Sessions restored on several cores")
struct ParallelRestoreTests {
    @Test("Each session comes back in its place, as written, and a damaged one is reported as itself")
    func inOrder() throws {
        let lease = SessionLease(timeToLive: 86_400, lastAccess: StorageFixture.start)
        let sessions = try (1...40).map { number in try StorageFixture.busySession(id: StorageFixture.id(number)) }
        var found = sessions.map { session in
            SessionTable.Found(
                rawID: session.id.rawValue, body: SessionCodec.encode(session), revision: session.revision, lease: lease,
                events: zip(session.keptEvents.map(\.revision), StorageFixture.eventRows(of: session)).map { ($0, $1) },
                tableEventsThrough: session.keptEvents.last?.revision, inLog: false)
        }
        // The 27th holds the 4th's bytes: decoded, its id does not match its key.
        found[26].body = found[3].body
        // Runs of 4: ten, shared among four workers (one run after another on one core).
        let restored = SessionDatabase.restoreAll(
            found, limits: Limits(eventsKept: 12), path: "sessions.sqlite3", cores: 4, minimumRun: 4)
        #expect(restored.count == sessions.count)
        for (index, result) in restored.enumerated() where index != 26 {
            #expect((try? result.get())?.session == sessions[index], "session \(index + 1)")
        }
        #expect {
            _ = try restored[26].get()
        } throws: { error in
            guard case StorageOpenError.invalidSession(_, let id, _) = error else { return false }
            return id == sessions[26].id.rawValue
        }
        // Restored in turn, the same.
        let inTurn = SessionDatabase.restoreAll(found, limits: Limits(eventsKept: 12), path: "sessions.sqlite3", cores: 1)
        #expect(inTurn.map { try? $0.get().session } == restored.map { try? $0.get().session })
    }
}
