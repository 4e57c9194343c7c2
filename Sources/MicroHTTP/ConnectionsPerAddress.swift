import Synchronization

/// Open connections counted by client, an IPv6 client by its /64: `--max-connections-per-ip`.
///
/// libmicrohttpd has a per-address limit of its own, but it counts exact addresses, and a
/// client given an IPv6 /64 (as most networks hand out) has 2^64 of them: it could open the
/// limit from each. Here an address counts by `ClientAddress.limitKey`, as the creation rate
/// does. A connection is checked when it is accepted (`admits`) and counted once libmicrohttpd
/// has set it up (`opened`) until it closes (`closed`), so a connection the library drops
/// on the way is never counted. Two connections accepted at the same moment on two worker
/// threads may both take the last place: the limit holds to within the worker count.
///
/// Only addresses with a connection open are kept, so memory follows the open connections,
/// which `--max-connections` bounds.
public final class ConnectionsPerAddress: Sendable {
    private struct State {
        var open: [ClientAddress: Int] = [:]
        var refused = 0
    }

    /// Connections one client may hold open at once.
    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        precondition(limit > 0, "a limit of no connections")
        self.limit = limit
    }

    /// Whether a new connection from `address` may open; counts the refusal when not.
    public func admits(_ address: ClientAddress) -> Bool {
        let key = address.limitKey
        return state.withLock { state in
            guard state.open[key, default: 0] < limit else {
                state.refused += 1
                return false
            }
            return true
        }
    }

    /// A connection from `address` is open.
    public func opened(_ address: ClientAddress) {
        state.withLock { $0.open[address.limitKey, default: 0] += 1 }
    }

    /// A connection `opened` before has closed.
    public func closed(_ address: ClientAddress) {
        let key = address.limitKey
        state.withLock { state in
            guard let count = state.open[key] else { return }
            state.open[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Clients with a connection open, and the connections refused so far.
    public var counts: (clients: Int, refused: Int) {
        state.withLock { ($0.open.count, $0.refused) }
    }
}
