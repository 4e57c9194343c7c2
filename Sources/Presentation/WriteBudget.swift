#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// How many bytes a second one large session may have written to storage: each change of a
/// durable session writes the whole session, so a session grown to megabytes turns every small
/// request into megabytes written and folded, and one client holding it slowed every other
/// session's writes twenty to forty times (SECURITY.md, "What it does not do").
///
/// A generic cell rate algorithm per session: each write of `bytes` moves the session's
/// theoretical time forward by `bytes / bytesPerSecond`, and a change is refused while that
/// time runs more than `burstSeconds` ahead of the clock. The write that crosses the line is
/// let through whole (whatever its size) and the debt it leaves is waited out, so no session
/// is ever shut out for good: it is slowed to the rate.
///
/// Sessions that take less than `countedFrom` bytes are not counted and cost no lookup: the
/// amplification is what this bounds, and at that size one change writes about what a
/// request of its own size does, each session's changes waiting for the one before to be
/// durable. Memory is bounded by the large sessions in debt: an entry whose time has passed is
/// the same as none, and such entries are dropped as the table grows.
public final class WriteBudget: Sendable {
    public let bytesPerSecond: Int
    public let burstSeconds: Double
    public let countedFrom: Int
    private struct State {
        /// Each counted session's theoretical time, in seconds since the reference date.
        var due: [SessionID: Double] = [:]
        /// Past this many entries, the next charge drops those that are due.
        var pruneAt = 1024
    }
    private let state = Mutex(State())

    /// Sessions of `countedFrom` bytes or more may have `bytesPerSecond` written a second, and
    /// `burstSeconds` of that at once.
    public init(bytesPerSecond: Int, burstSeconds: Double = 4, countedFrom: Int = 64 << 10) {
        precondition(bytesPerSecond > 0, "a write budget needs a rate")
        self.bytesPerSecond = bytesPerSecond
        self.burstSeconds = burstSeconds
        self.countedFrom = countedFrom
    }

    /// The whole seconds a change of the session, which takes `storedBytes`, must wait at
    /// `now` (at least 1); nil when it may be made.
    func wait(for id: SessionID, storedBytes: Int, at now: Date) -> Int? {
        guard storedBytes >= countedFrom else { return nil }
        let now = now.timeIntervalSinceReferenceDate
        // With the clock steady, a session is at most a burst and its last write (of
        // `storedBytes`) ahead of it; further ahead, the clock stepped back since, and the step
        // is not waited out: the session is put back as far as it can be.
        let furthest = now + burstSeconds + Double(storedBytes) / Double(bytesPerSecond)
        let due = state.withLock { state -> Double? in
            guard let due = state.due[id] else { return nil }
            if due > furthest { state.due[id] = furthest }
            return min(due, furthest)
        }
        guard let due, due - now > burstSeconds else { return nil }
        return max(1, Int((due - now - burstSeconds).rounded(.up)))
    }

    /// Counts a write of `bytes` of the session at `now`: what the write put on disk
    /// (`SessionJournal.writtenBytes`), not counted under `countedFrom`, as in a small session.
    func charge(_ id: SessionID, bytes: Int, at now: Date) {
        guard bytes >= countedFrom else { return }
        let now = now.timeIntervalSinceReferenceDate
        let cost = Double(bytes) / Double(bytesPerSecond)
        state.withLock { state in
            // A clock that stepped back does not add the step to the debt: at most a burst and
            // this write ahead of the clock, as far as a session gets with the clock steady.
            let from = max(state.due[id] ?? now, now)
            state.due[id] = min(from + cost, now + burstSeconds + cost)
            if state.due.count > state.pruneAt {
                state.due = state.due.filter { $0.value > now }
                state.pruneAt = max(1024, 2 * state.due.count)
            }
        }
    }

    /// Sessions counted now, some of them due (for tests and `/metrics`).
    public var trackedSessions: Int { state.withLock { $0.due.count } }
}
