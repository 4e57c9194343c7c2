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
/// done on a creation at most every `interval` seconds, by one creation at a time: nothing
/// runs while no session is made, and the hot paths (reads, changes) never look. A reading at
/// or past the limit asks `reclaim` (freed heap handed back to the kernel) and measures again
/// before refusing, so that memory freed by deleted and expired sessions counts as soon as it
/// can. Creations that come while one measures use the last reading when it lets them in; when
/// it would refuse them they wait for the measure under way, whose reclaim may let them in
/// (they were refused on the reading it was replacing while it found the process under the limit).
public final class MemoryBudget: Sendable {
    public let limit: Int
    private let interval: TimeInterval
    private let measure: @Sendable () -> Int?
    private let reclaim: @Sendable () -> Void
    private let state = Mutex(Reading())
    /// Held while one creation measures (and reclaims), for those the last reading would refuse
    /// to wait on.
    private let measurement = Mutex(())

    private struct Reading {
        var bytes: Int?
        var takenAt: Date?
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
        let last = state.withLock { $0 }
        if isFresh(last, at: now) { return exceeds(last) }
        guard exceeds(last) else {
            // Let in by the last reading: measured by this creation unless another measures
            // already, and then not waited for (the measure may reclaim, which takes milliseconds).
            return measurement.withLockIfAvailable { _ in measureUnlessFresh(now: now) } ?? false
        }
        // Refused by the last reading: wait for the measure under way, which may find room.
        return measurement.withLock { _ in measureUnlessFresh(now: now) }
    }

    /// Holding `measurement`: the reading another creation has just taken, if it is fresh at
    /// `now`, else a new one.
    private func measureUnlessFresh(now: Date) -> Bool {
        let last = state.withLock { $0 }
        if isFresh(last, at: now) { return exceeds(last) }
        var bytes = measure()
        if let measured = bytes, measured >= limit {
            reclaim()
            bytes = measure()
        }
        let reading = Reading(bytes: bytes, takenAt: now)
        state.withLock { $0 = reading }
        return exceeds(reading)
    }

    /// Less than `interval` from `now` either way.
    private func isFresh(_ reading: Reading, at now: Date) -> Bool {
        guard let takenAt = reading.takenAt else { return false }
        return abs(now.timeIntervalSince(takenAt)) < interval
    }

    private func exceeds(_ reading: Reading) -> Bool {
        reading.bytes.map { $0 >= limit } ?? false
    }
}
