#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The change a batch is building: the revision it will get, and what its steps have done so far.
struct PendingChange {
    let revision: Int
    /// When the change is made: every event it records carries this time and `revision`.
    let time: Date
    let limits: Limits
    /// Recorded as whole events, so the change hands out this array as it is (one allocation
    /// a change, not one for the kinds and another for the events made from them).
    private(set) var events: [Event] = []
    /// Set by each `present` step, so a batch reports the last one.
    var presented: PresentationID?

    init(revision: Int, time: Date, limits: Limits) {
        self.revision = revision
        self.time = time
        self.limits = limits
    }

    mutating func record(_ event: EventKind) {
        events.append(Event(revision: revision, time: time, kind: event))
    }
}
