import MicroHTTP
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts answered requests by method, route and status, with a latency histogram per route.
///
/// Every worker thread records every request, so one lock would be the hottest lock in the
/// server: the counts are split over stripes chosen by thread, and a scrape adds them up.
final class RequestMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds (Prometheus `le`).
    static let bucketBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    struct Key: Hashable, Sendable {
        let method: String
        let route: String
        let status: Int

        /// The key a new series is kept under: a client may send any token as its method, and
        /// every new one would add a series kept, scanned on every request and scraped, for
        /// good; methods the API has no route for count as `other`. Done only for a key not
        /// found, so that the common request compares no method names.
        var folded: Key {
            switch method {
            case "GET", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH": self
            default: Key(method: "other", route: route, status: status)
            }
        }
    }

    /// One route's latencies: a count per bucket (the last is +Inf), their sum and count.
    struct Histogram: Sendable {
        var buckets = [Int](repeating: 0, count: RequestMetrics.bucketBounds.count + 1)
        var sum = 0.0
        var count = 0

        mutating func observe(_ seconds: Double) {
            let index = RequestMetrics.bucketBounds.firstIndex { seconds <= $0 } ?? RequestMetrics.bucketBounds.count
            buckets[index] += 1
            sum += seconds
            count += 1
        }

        mutating func add(_ other: Histogram) {
            for index in buckets.indices { buckets[index] += other.buckets[index] }
            sum += other.sum
            count += other.count
        }
    }

    /// By method, route and status, each with its latencies; a scrape adds up those of one route.
    ///
    /// A short list searched from the last key found rather than a dictionary: a server has
    /// a few dozen keys, a thread's requests mostly repeat the last one, and comparing keys
    /// is cheap where hashing two strings on every request was not (the route's string is
    /// the route table's own, so equal routes compare as the same storage).
    private struct Counts {
        var keys: [Key] = []
        var histograms: [Histogram] = []
        var last = 0

        mutating func observe(_ seconds: Double, for key: Key) {
            if last < keys.count, keys[last] == key { return histograms[last].observe(seconds) }
            if let index = keys.firstIndex(of: key) {
                last = index
            } else if let index = keys.firstIndex(of: key.folded) {
                last = index
            } else {
                keys.append(key.folded)
                histograms.append(Histogram())
                last = keys.count - 1
            }
            histograms[last].observe(seconds)
        }
    }

    /// One stripe's counts behind its own lock (a class, since a Mutex cannot sit in an array).
    private final class Stripe: Sendable {
        let counts = Mutex(Counts())
    }

    private let stripes: [Stripe]
    /// Requests libmicrohttpd answered itself, by status: rare (each is a malformed or
    /// oversized request), so one lock is enough, and the statuses it sends are a handful.
    private let refusals = Mutex<[Int: Int]>([:])
    private let failedHandshakes = Atomic<Int>(0)

    init(stripes: Int = 16) {
        self.stripes = (0..<stripes).map { _ in Stripe() }
    }

    func record(method: HTTPMethod, route: String, status: HTTPStatus, duration: Duration) {
        // `components` splits a 128-bit count of attoseconds by division: once, not once a part.
        let (wholeSeconds, attoseconds) = duration.components
        let seconds = Double(wholeSeconds) + Double(attoseconds) / 1e18
        let key = Key(method: method.rawValue, route: route, status: status.rawValue)
        stripes[Self.stripeIndex(of: stripes.count)].counts.withLock { counts in
            counts.observe(seconds, for: key)
        }
    }

    func recordRefusal(status: HTTPStatus) {
        refusals.withLock { $0[status.rawValue, default: 0] += 1 }
    }

    func recordFailedHandshake() {
        failedHandshakes.add(1, ordering: .relaxed)
    }

    /// TLS handshakes that failed (`LibraryMessage.isFailedHandshake`).
    var failedHandshakeCount: Int { failedHandshakes.load(ordering: .relaxed) }

    /// Counts of libmicrohttpd's own answers, by status.
    func refusalCounts() -> [Int: Int] {
        refusals.withLock { $0 }
    }

    /// Every stripe added up.
    func snapshot() -> (requests: [Key: Int], latencies: [String: Histogram]) {
        var requests: [Key: Int] = [:]
        var latencies: [String: Histogram] = [:]
        for stripe in stripes {
            stripe.counts.withLock { counts in
                for (key, histogram) in zip(counts.keys, counts.histograms) {
                    requests[key, default: 0] += histogram.count
                    latencies[key.route, default: Histogram()].add(histogram)
                }
            }
        }
        return (requests, latencies)
    }

    /// The calling thread's stripe: threads keep to their own, so they rarely meet on a lock.
    private static func stripeIndex(of count: Int) -> Int {
        var thread = pthread_self()
        let hash = withUnsafeBytes(of: &thread) { bytes in bytes.reduce(into: 0) { $0 = $0 &* 31 &+ Int($1) } }
        return Int(UInt(bitPattern: hash) % UInt(count))
    }
}
