/// A session's recent events, bounded by dropping whole revisions from the front.
///
/// Whole revisions go so that "events after r" is either complete or refused, never partial.
struct EventHistory: Hashable, Sendable {
    /// In revision order.
    private(set) var events: [Event] = []
    /// Every event of this revision and earlier has been dropped; 0 while nothing has.
    private(set) var droppedThrough = 0

    init() {}

    /// A history read back from a snapshot, which the caller has checked is in revision order.
    init(restoring events: [Event], droppedThrough: Int) {
        self.events = events
        self.droppedThrough = droppedThrough
    }

    mutating func append(_ new: [Event], keeping limit: Int) {
        events.append(contentsOf: new)
        guard events.count > max(limit, 0) else { return }
        var cut = events.count - max(limit, 0)
        // Never split a revision: drop the rest of the one the cut falls in.
        while cut < events.count, events[cut].revision == events[cut - 1].revision {
            cut += 1
        }
        droppedThrough = events[cut - 1].revision
        events.removeFirst(cut)
    }

    /// The kept events with a revision above `revision`.
    func events(after revision: Int, current: Int) throws(PresentationError) -> [Event] {
        guard revision <= current else { throw .revisionAhead(current: current) }
        // Every revision has events, so when `revision` is below `droppedThrough`, those of
        // `droppedThrough` itself are missing; otherwise nothing after `revision` was dropped.
        guard revision >= droppedThrough || droppedThrough == 0 else {
            throw .historyExpired(oldest: droppedThrough)
        }
        let start = events.lastIndex { $0.revision <= revision }.map { $0 + 1 } ?? events.startIndex
        return Array(events[start...])
    }
}
