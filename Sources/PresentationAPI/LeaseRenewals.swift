import Presentation
import Synchronization

/// Keeps followed sessions alive when their time-to-live is too short for what else renews them.
///
/// An event stream renews its session at each heartbeat (`--heartbeat`, 15 s by default), and a
/// long poll when it is answered (after up to `--max-wait` seconds). A creator may ask for a
/// `ttl` as short as 1 s, and such a session expired under a client following it: the stream
/// then ended with `event: deleted`, the long poll with 404. While such a client follows it,
/// the session is renewed here every third of its time-to-live, with the owner's-token check
/// the heartbeat makes.
///
/// One timer for all of them, ticking only while there is one to renew: a timer per follower
/// woke the process as many times as there were followers (thousands of streams at a `ttl` of
/// 1 s, each with a queue of its own), where ticks of a quarter second cost four wakeups a
/// second whatever their number.
final class LeaseRenewals: Sendable {
    private struct Follower {
        let id: SessionID
        let openedWith: SessionTokenDigest
        let every: Duration
        var due: ContinuousClock.Instant
    }

    private struct State {
        var followers: [Int: Follower] = [:]
        var nextKey = 0
        var ticks: RepeatingWork?
    }

    /// A follower's renewal comes at most this late: a third of the shortest ttl (1 s) and a tick
    /// stay well inside it.
    static let tick = 0.25

    private let store: any SessionStore
    private let state = Mutex(State())

    init(store: any SessionStore) {
        self.store = store
    }

    /// Renews session `id` while followed with the token `openedWith`, until the returned
    /// closure is called; nil, and nothing to stop, when the session's time-to-live outlasts
    /// `period` (what renews it otherwise) twice over. Once the token is replaced, the
    /// renewals keep the session alive no longer, as the heartbeat's do not.
    func follow(_ id: SessionID, openedWith: SessionTokenDigest, renewedOtherwiseEvery period: Double)
        -> (@Sendable () -> Void)?
    {
        guard let ttl = store.lease(of: id)?.timeToLive, Double(ttl) < 2 * period else { return nil }
        let every = Duration.milliseconds(ttl * 1000 / 3)
        let key = state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.followers[key] = Follower(id: id, openedWith: openedWith, every: every, due: .now + every)
            if state.ticks == nil {
                state.ticks = RepeatingWork(label: "lease-renewals", every: Self.tick) { [weak self] in self?.renewDue() }
            }
            return key
        }
        return { [weak self] in self?.unfollow(key) }
    }

    /// Whether the timer runs: only while some session is followed here.
    var isTicking: Bool { state.withLock { $0.ticks != nil } }

    /// It does not wait for a tick under way: a stream may end on any thread, holding anything.
    private func unfollow(_ key: Int) {
        let stopped = state.withLock { state -> RepeatingWork? in
            state.followers[key] = nil
            guard state.followers.isEmpty, let ticks = state.ticks else { return nil }
            state.ticks = nil
            return ticks
        }
        stopped?.cancelWithoutWaiting()
    }

    /// Renews the sessions due, outside the lock: a read takes the session's own.
    private func renewDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [(SessionID, SessionTokenDigest)] in
            var due: [(SessionID, SessionTokenDigest)] = []
            for key in Array(state.followers.keys) {
                guard let follower = state.followers[key], follower.due <= now else { continue }
                due.append((follower.id, follower.openedWith))
                state.followers[key]?.due = now + follower.every
            }
            return due
        }
        for (id, openedWith) in due {
            store.renew(id, followedWith: openedWith)
        }
    }
}
