/// A session's recent events, bounded by dropping whole revisions from the front.
///
/// Whole revisions go so that "events after r" is either complete or refused, never partial.
///
/// Sessions are values, and every change is made on a copy that shares storage with the
/// stored session (`Session.apply`, the store's update), so a plain array of up to
/// `eventsKept` (512) events was copied whole on every change. Events are kept instead in
/// sealed chunks that never change once full, shared by every copy, and a short tail that
/// the next change copies: an append costs at most one chunk (16 events), however long the history.
struct EventHistory: Hashable, Sendable {
    private static let chunkSize = 16

    /// Full chunks of `chunkSize` events, oldest first; never mutated once sealed.
    private var sealed: [[Event]] = []
    /// The newest events, fewer than `chunkSize`.
    private var tail: [Event] = []
    /// How many events of `sealed[0]` are dropped already.
    private var head = 0
    /// Every event of this revision and earlier has been dropped; 0 while nothing has.
    private(set) var droppedThrough = 0

    init() {}

    /// A history read back from a snapshot, which the caller has checked is in revision order.
    init(restoring events: [Event], droppedThrough: Int) {
        append(events)
        self.droppedThrough = droppedThrough
    }

    /// The kept events, in revision order: whole chunks copied at a time (storage writes
    /// this on every durable change, and element-by-element indexing showed in its profile).
    var events: [Event] {
        var all: [Event] = []
        all.reserveCapacity(count)
        forEachRun { all.append(contentsOf: $0) }
        return all
    }

    /// Calls `body` with each kept event, oldest first, without copying them out.
    func forEach(_ body: (Event) throws -> Void) rethrows {
        try forEachRun { run in
            for event in run { try body(event) }
        }
    }

    /// The kept events as the runs of the chunks that hold them, oldest first: `head` applies
    /// to the first chunk, or to the tail when no chunk is sealed.
    private func forEachRun(_ body: (ArraySlice<Event>) throws -> Void) rethrows {
        for (index, chunk) in sealed.enumerated() {
            try body(index == 0 ? chunk[head...] : chunk[...])
        }
        try body(sealed.isEmpty ? tail[head...] : tail[...])
    }

    /// How many events are kept.
    var count: Int {
        sealed.count * Self.chunkSize + tail.count - head
    }

    /// The kept event at `index`, 0 being the oldest kept.
    private subscript(index: Int) -> Event {
        let position = index + head
        let chunk = position / Self.chunkSize
        return chunk < sealed.count ? sealed[chunk][position % Self.chunkSize] : tail[position - sealed.count * Self.chunkSize]
    }

    /// The kept events from `index` on.
    private func suffix(from index: Int) -> some Sequence<Event> {
        (index..<count).lazy.map { self[$0] }
    }

    mutating func append(_ new: [Event], keeping limit: Int) {
        append(new)
        let limit = max(limit, 0)
        guard count > limit else { return }
        var cut = count - limit
        // Never split a revision: drop the rest of the one the cut falls in.
        while cut < count, self[cut].revision == self[cut - 1].revision {
            cut += 1
        }
        droppedThrough = self[cut - 1].revision
        dropFirst(cut)
    }

    private mutating func append(_ new: [Event]) {
        for event in new {
            tail.append(event)
            if tail.count == Self.chunkSize {
                sealed.append(tail)
                tail = []
            }
        }
    }

    private mutating func dropFirst(_ dropped: Int) {
        head += dropped
        let whole = min(head / Self.chunkSize, sealed.count)
        sealed.removeFirst(whole)
        head -= whole * Self.chunkSize
        if sealed.isEmpty, head > 0 {
            tail.removeFirst(head)
            head = 0
        }
    }

    /// The kept events with a revision above `revision`.
    func events(after revision: Int, current: Int) throws(PresentationError) -> [Event] {
        guard revision <= current else { throw .revisionAhead(current: current) }
        // Every revision has events, so when `revision` is below `droppedThrough`, those of
        // `droppedThrough` itself are missing; otherwise nothing after `revision` was dropped.
        guard revision >= droppedThrough || droppedThrough == 0 else {
            throw .historyExpired(oldest: droppedThrough)
        }
        // Newest first: a subscriber usually asks for the last few.
        var start = count
        while start > 0, self[start - 1].revision > revision { start -= 1 }
        return Array(suffix(from: start))
    }

    /// Equal when the same events are kept and the same were dropped, however they are chunked.
    static func == (left: EventHistory, right: EventHistory) -> Bool {
        left.droppedThrough == right.droppedThrough && left.count == right.count
            && left.suffix(from: 0).elementsEqual(right.suffix(from: 0))
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(droppedThrough)
        hasher.combine(count)
        for event in suffix(from: 0) { hasher.combine(event) }
    }
}
