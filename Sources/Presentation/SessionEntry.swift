#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// One stored session, its lease and its watchers, behind a lock of its own so that sessions never wait on each other.
///
/// With a journal, a change is written under this lock before it is committed here: a change
/// that cannot be written is not made, and two changes of one session reach the disk in order.
final class SessionEntry: Sendable {
    struct State {
        var session: Session
        var lease: SessionLease
        /// The last access the journal has; reads move `lease.lastAccess` past it without writing.
        var persistedAccess: Date
        /// By registration number, so watchers are told in the order they registered.
        var watchers: [Int: Watch] = [:]
        var nextWatcher = 0
        /// True until a new session is written, and after deletion or expiry: the entry is then no session.
        var closed: Bool
        /// With a journal: a change holds the turn from its start until its write is durable or
        /// failed, so that one write of this session is in flight at a time, each change made on
        /// top of the last one written. Those that come meanwhile wait here, in order.
        var busy = false
        /// Without a journal: changes whose watchers are being told, outside the lock (the low 15
        /// bits: at most one a thread), and whether a deletion waits for them (`closingFlag`; its
        /// completion in `SessionEntry.closings`), so that what they tell is read, and sent,
        /// before it (`close(ifAt:then:)`). 16 bits, in what would be padding: a field for the
        /// rare waiting deletion's completion cost every session 16 bytes.
        var telling: UInt16 = 0
        static let closingFlag: UInt16 = 0x8000
        /// A deletion waits for `telling` to reach 0: the session takes no change meanwhile.
        var closing: Bool { telling & Self.closingFlag != 0 }
        /// With a journal: the bytes the session takes there, as its last save answered. 32
        /// bits, in what would be padding: a session is far smaller (`Limits`); clamped all the same.
        var storedBytes: UInt32 = 0
        var waiting: [Turn] = []

        /// What the journal holds of the session: the last written, as the store keeps it.
        var stored: StoredSession { StoredSession(session, bytes: Int(storedBytes)) }
    }

    /// Not private, nor is `State`: the extensions in `SessionEntry+*.swift` work on it.
    let state: Mutex<State>
    /// The completions of deletions waiting for changes to finish telling (`State.closingFlag`),
    /// by entry: a deletion racing a change of a watched session in memory, so rare enough for
    /// one table, rather than a field in every session.
    static let closings = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])

    /// `open: false` for a session being created, which `open(storedBytes:)` shows once it is
    /// written; `storedBytes` for one read back from the journal.
    init(session: Session, lease: SessionLease, open: Bool = true, storedBytes: Int = 0) {
        state = Mutex(
            State(
                session: session, lease: lease, persistedAccess: lease.lastAccess, closed: !open,
                storedBytes: UInt32(clamping: storedBytes)))
    }

    /// Shows a new session, written (with a journal) in `storedBytes`. Its lease runs from
    /// `now`, once written, when that is later than the creation (a slow write): it was made
    /// when it was answered, and a write slower than its `ttl` otherwise answered a creation
    /// whose session was already gone. The journal has the creation's time until a tick or the sweep.
    func open(storedBytes: Int = 0, at now: Date? = nil) {
        state.withLock { state in
            state.closed = false
            state.storedBytes = UInt32(clamping: storedBytes)
            if let now { state.lease = state.lease.used(at: now) }
        }
    }

    /// The session unless closed or expired at `now`; the read keeps the session alive when
    /// `counts` says it is a use (its owner's, not a request that failed the token check).
    func session(at now: Date, countingAsUse counts: (borrowing Session) -> Bool) -> Session? {
        state.withLock { state in
            guard !state.closed, !state.lease.isExpired(at: now) else { return nil }
            if counts(state.session) { state.lease = state.lease.used(at: now) }
            return state.session
        }
    }

    /// `body` run on the session in place unless closed or expired at `now` (then false); the
    /// read keeps the session alive when `body` says it was a use.
    func read(at now: Date, _ body: (borrowing Session) -> Bool) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.lease.isExpired(at: now) else { return false }
            if body(state.session) { state.lease = state.lease.used(at: now) }
            return true
        }
    }

    /// The session as it is, without counting as a use (listings, the sweep).
    var current: Session? {
        state.withLock { $0.closed ? nil : $0.session }
    }

    var lease: SessionLease {
        state.withLock { $0.lease }
    }

    /// The lease when reads have moved it past what the journal has, for a batched touch; nil
    /// while a change holds the turn: that change moved the lease before its write, which may
    /// yet fail (no use, then), and the write carries the lease itself. Reads meanwhile are
    /// written by the next sweep; at a stop, whose last touch comes once requests are answered,
    /// only a write still in flight then (past the grace period) leaves them unwritten, the
    /// deadline on disk early by as long as that write took.
    var unwrittenLease: SessionLease? {
        unwrittenLease(writtenExpiringBefore: .distantFuture)
    }

    /// `unwrittenLease`, only when the deadline the journal has for the session comes before
    /// `deadline`: a renewal that a kill would lose before a later write, the restarted server
    /// then taking the session for expired while its client still uses it.
    func unwrittenLease(writtenExpiringBefore deadline: Date) -> SessionLease? {
        state.withLock { state in
            let written = state.persistedAccess.addingTimeInterval(TimeInterval(state.lease.timeToLive))
            guard !state.closed, !state.busy, state.lease.lastAccess > state.persistedAccess, written < deadline else {
                return nil
            }
            return state.lease
        }
    }

    /// Whether a renewal may yet need writing: one that reads made and the journal lacks, or a
    /// change's write in flight (`unwrittenLease` is nil meanwhile), whose lease runs from its
    /// landing while the journal gets its start. A tick that dropped the latter lost the
    /// renewals of reads made during the write, and the landing's.
    var renewalPending: Bool {
        state.withLock { !$0.closed && ($0.busy || $0.lease.lastAccess > $0.persistedAccess) }
    }

    /// The deadline the journal has for the session: what a server restarted now would keep.
    var writtenExpiry: Date {
        state.withLock { $0.persistedAccess.addingTimeInterval(TimeInterval($0.lease.timeToLive)) }
    }

    func markWritten(_ lease: SessionLease) {
        state.withLock { state in
            state.persistedAccess = max(state.persistedAccess, lease.lastAccess)
        }
    }
}
