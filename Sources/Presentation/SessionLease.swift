#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How long a session may sit unused, and when it was last used: together, when it expires.
public struct SessionLease: Hashable, Sendable {
    /// Seconds of idleness after which the session is gone.
    public var timeToLive: Int
    /// The last read or change.
    public var lastAccess: Date

    public init(timeToLive: Int, lastAccess: Date) {
        self.timeToLive = timeToLive
        self.lastAccess = lastAccess
    }

    public var expiry: Date { lastAccess.addingTimeInterval(TimeInterval(timeToLive)) }

    public func isExpired(at now: Date) -> Bool { now >= expiry }

    /// The lease after a use at `time`: it runs from then, never from earlier than it did.
    func used(at time: Date) -> SessionLease {
        var lease = self
        lease.lastAccess = max(lastAccess, time)
        return lease
    }
}
