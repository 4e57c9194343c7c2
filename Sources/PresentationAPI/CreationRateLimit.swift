import MicroHTTP
import Synchronization

/// How many sessions one client address may create (or import) a minute: a token bucket per
/// address that holds a minute's worth and refills evenly, so a client may create its whole
/// allowance at once and then one every `60 / perMinute` seconds.
///
/// Without it, one client could create sessions up to the server's limit and keep everyone
/// else from creating any until they expire. IPv6 addresses count by their /64
/// (`ClientAddress.limitKey`).
///
/// Memory is bounded by the addresses seen in the last two minutes: a bucket untouched for a
/// minute is full again, the same as no bucket, so buckets live in two generations of a
/// minute each and the older is dropped whole when a new one begins. Past `capacity`
/// addresses a new one is let through untracked: a client with that many addresses would
/// get past any per-address limit anyway, and refusing would shut out newcomers instead.
final class CreationRateLimit: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private struct State {
        var current: [ClientAddress: Bucket] = [:]
        var previous: [ClientAddress: Bucket] = [:]
        var generationStarted: Double
        /// Creations let through uncounted because the table was full.
        var untracked = 0
    }

    let perMinute: Int
    private let capacity: Int
    private let state: Mutex<State>
    /// Seconds for an empty bucket to fill: a generation lasts as long.
    private static let window = 60.0

    /// `perMinute` at least 1; `now` is the time the first request is measured from.
    init(perMinute: Int, capacity: Int = 100_000, now: Double) {
        self.perMinute = max(1, perMinute)
        self.capacity = max(1, capacity)
        state = Mutex(State(generationStarted: now))
    }

    /// Takes one creation for `address` at `now` (seconds, any epoch): nil when allowed,
    /// else the whole seconds until one will be (at least 1). A refusal takes nothing.
    func take(for address: ClientAddress, at now: Double) -> Int? {
        let key = address.limitKey
        return state.withLock { state -> Int? in
            Self.rotate(&state, now: now)
            // An address seen this generation, the common case, costs one hash lookup:
            // its bucket is changed where it lies.
            if let index = state.current.index(forKey: key) {
                return take(from: &state.current.values[index], at: now)
            }
            var bucket: Bucket
            if let kept = state.previous.removeValue(forKey: key) {
                bucket = kept
            } else {
                guard state.current.count + state.previous.count < capacity else {
                    state.untracked += 1
                    return nil
                }
                bucket = Bucket(tokens: Double(perMinute), updated: now)
            }
            let wait = take(from: &bucket, at: now)
            state.current[key] = bucket
            return wait
        }
    }

    /// Refills `bucket` for the time since it was last used, then takes one from it or says
    /// how long until one is there.
    private func take(from bucket: inout Bucket, at now: Double) -> Int? {
        let rate = Double(perMinute) / Self.window
        // A clock that steps back refills nothing, and no span is counted twice.
        bucket.tokens = min(Double(perMinute), bucket.tokens + max(0, now - bucket.updated) * rate)
        bucket.updated = max(bucket.updated, now)
        guard bucket.tokens >= 1 else {
            // Refilling starts only once the clock is back at the bucket's last time, so the
            // wait said runs from there: from `now` alone a client that kept to its
            // Retry-After after the clock stepped back was refused again, by up to the step.
            let wait = bucket.updated - now + (1 - bucket.tokens) / rate
            return max(1, Int(wait.rounded(.up)))
        }
        bucket.tokens -= 1
        return nil
    }

    /// Addresses kept now (some may be past their two minutes until the next creation
    /// turns the generations over), and creations let through uncounted at capacity: for
    /// `/metrics`, so that a table at its bound is seen.
    var counts: (tracked: Int, untracked: Int) {
        state.withLock { ($0.current.count + $0.previous.count, $0.untracked) }
    }

    /// Begins a new generation once the current one is a window old. Buckets of the older
    /// one were last touched over a window ago, so they are full and can go; after two
    /// windows with no request, both can.
    private static func rotate(_ state: inout State, now: Double) {
        // A clock that steps back begins the generation anew, both kept: counted from a start
        // in the future it would not end until the clock was back there, and every address seen
        // meanwhile would be kept, and past `capacity` every new one let through uncounted.
        // Whatever is in them was last used before the step, so is full two windows on.
        if now < state.generationStarted { state.generationStarted = now }
        let age = now - state.generationStarted
        guard age >= window else { return }
        state.previous = age >= 2 * window ? [:] : state.current
        state.current = [:]
        state.generationStarted = now
    }
}
