/// The change a batch is building: the revision it will get, and what its steps have done so far.
struct PendingChange {
    let revision: Int
    let limits: Limits
    private(set) var events: [EventKind] = []
    /// Set by each `present` step, so a batch reports the last one.
    var presented: PresentationID?

    init(revision: Int, limits: Limits) {
        self.revision = revision
        self.limits = limits
    }

    mutating func record(_ event: EventKind) {
        events.append(event)
    }
}
