import Foundation
import Synchronization

/// A clock the test sets and advances, so timestamps on the wire can be asserted exactly.
final class TestClock: Sendable {
    /// 2026-11-22T15:00:00.000Z
    static let origin = Date(timeIntervalSince1970: 1_795_359_600)

    private let current: Mutex<Date>

    init(_ start: Date = TestClock.origin) {
        current = Mutex(start)
    }

    var now: Date {
        current.withLock { $0 }
    }

    /// Moves the clock on; use binary-exact steps (0.5, 0.25) so milliseconds print exactly.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
