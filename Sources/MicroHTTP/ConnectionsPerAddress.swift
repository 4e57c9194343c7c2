import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Open connections counted by client, an IPv6 client by its /64: `--max-connections-per-ip`.
///
/// libmicrohttpd has a per-address limit of its own, but it counts exact addresses, and a
/// client given an IPv6 /64 (as most networks hand out) has 2^64 of them: it could open the
/// limit from each. Here an address counts by `ClientAddress.limitKey`, as the creation rate
/// does.
///
/// A place is taken when a connection is accepted (`admit`, in libmicrohttpd's accept policy
/// callback), so that two worker threads accepting at the same moment cannot both take a
/// client's last one, and given back when the connection closes (`closed`). Between the two,
/// libmicrohttpd may still drop a connection it accepted (out of memory) without a word; it
/// then never reports the connection started (`opened`). An accepted connection therefore
/// stays pending on its thread until it starts, and the thread's next accept gives back a
/// place still pending: libmicrohttpd sets up a connection on the thread that accepted it,
/// before that thread accepts another. Should a connection start elsewhere, it is counted
/// there and its pending place given back later: a count too high for a moment, never too low.
///
/// Only clients with a connection open are kept, so memory follows the open connections,
/// which `--max-connections` bounds.
public final class ConnectionsPerAddress: Sendable {
    private struct State {
        var open: [ClientAddress: Int] = [:]
        /// Each thread's last accepted connection that has not started yet.
        var pending: [UInt: ClientAddress] = [:]
        var refused = 0

        mutating func release(_ key: ClientAddress) {
            guard let count = open[key] else { return }
            open[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Connections one client may hold open at once.
    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        precondition(limit > 0, "a limit of no connections")
        self.limit = limit
    }

    /// The calling thread, as `admit` and `opened` tell threads apart.
    public static var currentThread: UInt { UInt(pthread_self()) }

    /// Takes a place for a new connection from `address` accepted on `thread`, or counts a
    /// refusal when its client holds all of them.
    public func admit(_ address: ClientAddress, thread: UInt = currentThread) -> Bool {
        let key = address.limitKey
        return state.withLock { state in
            if let dropped = state.pending.removeValue(forKey: thread) { state.release(dropped) }
            guard state.open[key, default: 0] < limit else {
                state.refused += 1
                return false
            }
            state.open[key, default: 0] += 1
            state.pending[thread] = key
            return true
        }
    }

    /// A connection from `address` has started, on `thread`: its place is kept until `closed`.
    public func opened(_ address: ClientAddress, thread: UInt = currentThread) {
        let key = address.limitKey
        state.withLock { state in
            if state.pending[thread] == key {
                state.pending[thread] = nil
            } else {
                state.open[key, default: 0] += 1
            }
        }
    }

    /// A connection `opened` before has closed: its place is free.
    public func closed(_ address: ClientAddress) {
        let key = address.limitKey
        state.withLock { $0.release(key) }
    }

    /// Clients holding a place, and the connections refused so far.
    public var counts: (clients: Int, refused: Int) {
        state.withLock { ($0.open.count, $0.refused) }
    }
}
