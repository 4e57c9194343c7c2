import Presentation

/// Keeps a followed session alive when its time-to-live is too short for what else renews it.
///
/// An event stream renews its session at each heartbeat (`--heartbeat`, 15 s by default), and a
/// long poll when it is answered (after up to `--max-wait` seconds). A creator may ask for a
/// `ttl` as short as 1 s, and such a session expired under a client following it: the stream
/// then ended with `event: deleted`, the long poll with 404. While such a client follows it,
/// this renews the session every third of its time-to-live, as the heartbeat would. Only for
/// those sessions: the rest need no timer of their own.
final class LeaseKeeper: Sendable {
    private let work: RepeatingWork

    private init(_ work: RepeatingWork) {
        self.work = work
    }

    /// A keeper for session `id` while followed with the token `openedWith`; nil when the
    /// session's time-to-live outlasts `renewedEvery` (what renews it otherwise) twice over.
    /// Like the heartbeat's, a renewal is the owner's use: once the token is replaced, it
    /// keeps the session alive no longer.
    static func start(
        for id: SessionID, openedWith: SessionTokenDigest, in store: any SessionStore, renewedEvery period: Double
    ) -> LeaseKeeper? {
        guard let ttl = store.lease(of: id)?.timeToLive, Double(ttl) < 2 * period else { return nil }
        let work = RepeatingWork(label: "lease-keeper", every: Double(ttl) / 3) {
            _ = store.read(id) { $0.tokenDigest.matches(openedWith) }
        }
        return LeaseKeeper(work)
    }

    /// No renewal after this. It does not wait for one under way: it may be called while the
    /// store's lock is held (a stream ended by its session's deletion).
    func stop() {
        work.cancelWithoutWaiting()
    }
}
