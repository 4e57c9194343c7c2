#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
import Synchronization

/// The memory a server may hold before it refuses new sessions, as `Limits.maxStoredBytes`
/// bounds its disk: past `limit`, creations and imports are refused with
/// `.memoryLimitReached` until the process holds less again, while existing sessions go on
/// (each bounded by `Limits.maxSessionBytes`). Without it the server as a whole was bounded
/// only by `maxSessions` times that, far more than any machine has, and a flood of sessions
/// ended with the OOM killer taking every session at once.
///
/// Measuring is the caller's (the process's resident memory) and costs system calls, so it is
/// done on a creation at most every `interval` seconds, by one creation while the others use
/// the last reading: nothing runs while no session is made, and the hot paths (reads,
/// changes) never look. A reading at or past the limit asks `reclaim` (freed heap handed back
/// to the kernel) and measures again before refusing, so that memory freed by deleted and
/// expired sessions counts as soon as it can.
public final class MemoryBudget: Sendable {
    public let limit: Int
    private let interval: TimeInterval
    private let measure: @Sendable () -> Int?
    private let reclaim: @Sendable () -> Void
    private let state = Mutex(Reading())

    private struct Reading {
        var bytes: Int?
        var takenAt: Date?
        var measuring = false
    }

    public init(
        limit: Int, interval: TimeInterval = 0.25, measure: @escaping @Sendable () -> Int?,
        reclaim: @escaping @Sendable () -> Void = {}
    ) {
        self.limit = limit
        self.interval = interval
        self.measure = measure
        self.reclaim = reclaim
    }

    /// The last reading, in bytes; nil before the first or where memory cannot be measured.
    public var lastReading: Int? { state.withLock { $0.bytes } }

    /// Whether the process holds `limit` bytes or more, measured again when the last reading
    /// is `interval` old at `now`, or `interval` in its future (a clock set back). A `now` a
    /// little before the reading is a creation that read the time before another measured,
    /// on another thread: it uses the reading, or creations out of order would each measure.
    public func isExceeded(now: Date) -> Bool {
        let due = state.withLock { reading in
            guard !reading.measuring else { return false }
            if let takenAt = reading.takenAt, abs(now.timeIntervalSince(takenAt)) < interval { return false }
            reading.measuring = true
            return true
        }
        if due {
            var bytes = measure()
            if let measured = bytes, measured >= limit {
                reclaim()
                bytes = measure()
            }
            state.withLock { reading in
                reading = Reading(bytes: bytes, takenAt: now, measuring: false)
            }
        }
        return state.withLock { $0.bytes.map { $0 >= limit } ?? false }
    }
}
