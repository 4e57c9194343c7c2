#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization

/// The durable sessions with a short `ttl` that reads renewed since the sweep's last tick.
///
/// The sweep writes the deadlines reads moved every interval (30 s at the default). A session
/// whose `ttl` is shorter than that, read all along, kept an older deadline on disk, and a
/// server restarted at once after a kill found it expired while its client still used it. The
/// sweep's ticks between two sweeps write those (`writeShortLeases`); noting them as they are
/// read, rather than scanning every session each second, keeps an idle server idle: the scan
/// of 100,000 sessions cost 1.75% of a core, against 0.12% without it.
public final class ShortLeaseRenewals: Sendable {
    /// Sessions whose `ttl` is under this many seconds are noted. Past twice the sweep's
    /// interval a deadline the last sweep wrote lies beyond the next one, which writes it.
    public let bound: Int
    private let noted = Mutex<[SessionID: SessionEntry]>([:])

    public init(under bound: Int) {
        self.bound = bound
    }

    /// Notes a read of `entry`, when its `ttl` is short.
    func note(_ id: SessionID, _ entry: SessionEntry) {
        guard entry.lease.timeToLive < bound else { return }
        noted.withLock { $0[id] = entry }
    }

    /// What was noted since the last take, no longer noted.
    func take() -> [SessionID: SessionEntry] {
        noted.withLock { noted in
            defer { noted = [:] }
            return noted
        }
    }

    /// Notes again what a tick took but did not write yet (its deadline not near, or the write
    /// failed), unless read meanwhile, which noted it already.
    func keep(_ entries: some Sequence<(SessionID, SessionEntry)>) {
        noted.withLock { noted in
            for (id, entry) in entries where noted[id] == nil { noted[id] = entry }
        }
    }

    /// How many are noted: for tests.
    public var count: Int { noted.withLock { $0.count } }
}
