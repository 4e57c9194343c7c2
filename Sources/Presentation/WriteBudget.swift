#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// How many bytes a second one session may have written to storage: each change of a durable
/// session writes its whole tree, so a session grown to megabytes turns every small request
/// into megabytes written and folded, and one client holding it slowed every other session's
/// writes twenty to forty times (SECURITY.md, "What it does not do").
///
/// A generic cell rate algorithm per session: each write of `bytes` moves the session's
/// theoretical time forward by `bytes / bytesPerSecond`, and a change is refused while that
/// time runs more than `burstSeconds` ahead of the clock. The write that crosses the line is
/// let through whole (whatever its size) and the debt it leaves is waited out, so no session
/// is ever shut out for good: it is slowed to the rate.
///
/// Every session is counted, whatever its size: with a size below which writes went uncounted
/// (64 KiB, at first), sessions kept just under it wrote 187 MB a second to disk unslowed
/// (the review of this limit). A small session's write leaves it a millisecond or so ahead, so
/// the table holds little more than the sessions written in the last moment, and those that
/// are due are dropped as it grows.
public final class WriteBudget: Sendable {
    public let bytesPerSecond: Int
    public let burstSeconds: Double
    private struct Entry {
        /// The theoretical time, in seconds since the reference date.
        var due: Double
        /// What the last write cost, in seconds of the rate.
        var lastCost: Double
    }
    private struct State {
        var entries: [SessionID: Entry] = [:]
        /// Past this many entries, the next charge drops those that are due.
        var pruneAt = 1024
    }
    private let state = Mutex(State())

    /// Each session may have `bytesPerSecond` written a second, and `burstSeconds` of that at once.
    public init(bytesPerSecond: Int, burstSeconds: Double = 4) {
        precondition(bytesPerSecond > 0, "a write budget needs a rate")
        self.bytesPerSecond = bytesPerSecond
        self.burstSeconds = burstSeconds
    }

    /// The whole seconds a change of the session must wait at `now` (at least 1); nil when it
    /// may be made. `replacingToken`: the change is a token rotation, the owner's way to shut
    /// out whoever else holds the token, which is allowed twice the burst: a holder changing
    /// the session as fast as it is allowed keeps it a burst and a write ahead, and took every
    /// place the owner's rotation waited for (14 tries over 13 s in the review). A loop of
    /// rotations is still slowed to the rate, past the larger burst.
    func wait(for id: SessionID, replacingToken: Bool = false, at now: Date) -> Int? {
        let now = now.timeIntervalSinceReferenceDate
        let allowed = replacingToken ? 2 * burstSeconds : burstSeconds
        let due = state.withLock { state -> Double? in
            guard let entry = state.entries[id] else { return nil }
            // With the clock steady, a session is at most twice the burst and its last write
            // ahead of it; further ahead, the clock stepped back since, and the step is not
            // waited out: the session is put back as far as it can be.
            let furthest = now + 2 * burstSeconds + entry.lastCost
            if entry.due > furthest { state.entries[id]?.due = furthest }
            return min(entry.due, furthest)
        }
        guard let due, due - now > allowed else { return nil }
        return max(1, Int((due - now - allowed).rounded(.up)))
    }

    /// Counts a write of `bytes` of the session at `now`: what the write put on disk
    /// (`SessionJournal.writtenBytes`).
    func charge(_ id: SessionID, bytes: Int, at now: Date) {
        let now = now.timeIntervalSinceReferenceDate
        let cost = Double(bytes) / Double(bytesPerSecond)
        state.withLock { state in
            let from = max(state.entries[id]?.due ?? now, now)
            state.entries[id] = Entry(due: from + cost, lastCost: cost)
            if state.entries.count > state.pruneAt {
                state.entries = state.entries.filter { $0.value.due > now }
                state.pruneAt = max(1024, 2 * state.entries.count)
            }
        }
    }

    /// Counts the write of `session` over `previous` that `journal` answered `storedBytes`
    /// for, at what the journal says it put on disk.
    func charge(
        _ session: borrowing Session, writtenTo journal: any SessionJournal, over previous: StoredSession?,
        storedBytes: Int, at now: Date
    ) {
        charge(session.id, bytes: journal.writtenBytes(of: session, over: previous, storedBytes: storedBytes), at: now)
    }

    /// Sessions counted now, some of them due (for tests and `/metrics`).
    public var trackedSessions: Int { state.withLock { $0.entries.count } }
}
