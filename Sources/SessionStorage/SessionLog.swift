import Presentation

/// What the writer knows of the `log` table: the sessions whose latest state is there and not
/// yet in the `sessions` and `event_chunks` tables ("unfolded"), in the order they went so, and how
/// many bytes of rows the log holds.
///
/// Why a log: a change used to rewrite its session's row and insert its events in place, and
/// the sessions of one group commit are spread over the file, so each change dirtied two or
/// three pages of their own (about 7 KB written a change). A group commit now appends one row
/// at the log's end, an entry a change. Folding a session writes its row and events once for
/// all the changes it made since it was last folded.
///
/// The log is deleted from its start up to the first row of the oldest unfolded session: every
/// row before it is of a session folded since (or removed), so the tables hold it or newer.
/// A value type, changed only once the transaction it describes has committed.
struct SessionLog {
    /// A session's state as an entry of the log saves it.
    struct SavedRow {
        let revision: Int
        let body: [UInt8]
        let lease: SessionLease
        /// Its kept events for the next fold to write, packed (`SessionCodec.packEvents`): those
        /// new since its previous entry, as a rule (`SessionTable.apply`).
        let events: [UInt8]
        /// Its history had dropped every event up to this revision.
        let eventsDroppedThrough: Int
        /// The same of the state it replaces, as last written (0 for a new session): for the
        /// first entry since a fold, what the chunks have been cut to (`Unfolded`).
        let tableDroppedThrough: Int
    }

    /// A session's latest state while the tables lack it: bytes and numbers, not the `Session`.
    /// Kept until the fold, a `Session` shared the store's arrays, so each later change of the
    /// session copied every array it touched (copy-on-write), on the request thread.
    struct Unfolded {
        let id: SessionID
        var revision: Int
        var body: [UInt8]
        var lease: SessionLease
        /// Its events new since it was last folded: its rows' events, one after another.
        var events: [UInt8]
        var eventsDroppedThrough: Int
        /// Its chunks of events through this revision are deleted (those of a new session: all
        /// none of them): the fold deletes more when its history has dropped more since.
        let tableDroppedThrough: Int
        /// The first row of the session since it was last folded; no earlier row is needed for it.
        let firstSequence: Int
    }

    private(set) var unfolded: [SessionID: Unfolded] = [:]
    /// Unfolded sessions by first row, oldest first, from `orderStart`; an entry is stale when
    /// its session has been folded or removed since (its `firstSequence` no longer matches).
    private var order: [(sequence: Int, id: SessionID)] = []
    private var orderStart = 0
    /// The byte size of each row from `head` on: `sizes[sizesStart]` is the row at `head`.
    private var sizes: [Int] = []
    private var sizesStart = 0
    /// The first row the table may still hold: every row before it has been deleted.
    private(set) var head: Int
    /// The sequence number of the next row.
    private(set) var next: Int
    /// Bytes of the rows from `head` to `next`.
    private(set) var bytes = 0

    /// A log whose next row is `next` and which holds none before it.
    init(next: Int) {
        head = next
        self.next = next
    }

    /// The number of rows from `head` on.
    var rows: Int { next - head }

    /// Notes a row of `size` bytes appended at `next`; its entries follow (`note`). Returns its
    /// sequence number.
    mutating func appendRow(size: Int) -> Int {
        next += 1
        sizes.append(size)
        bytes += size
        return next - 1
    }

    /// Notes an entry of row `sequence` for `id`: its newest state when `saved` is given,
    /// removed when `removed`, otherwise its lease alone moved on.
    mutating func note(_ id: SessionID, in sequence: Int, saving saved: SavedRow?, removed: Bool) {
        if removed {
            unfolded[id] = nil
        } else if let saved {
            // One lookup, and the entry changed in place: this runs for every change.
            if let index = unfolded.index(forKey: id) {
                unfolded.values[index].revision = saved.revision
                unfolded.values[index].body = saved.body
                unfolded.values[index].lease = saved.lease
                unfolded.values[index].events += saved.events
                unfolded.values[index].eventsDroppedThrough = saved.eventsDroppedThrough
            } else {
                unfolded[id] = Unfolded(
                    id: id, revision: saved.revision, body: saved.body, lease: saved.lease, events: saved.events,
                    eventsDroppedThrough: saved.eventsDroppedThrough, tableDroppedThrough: saved.tableDroppedThrough,
                    firstSequence: sequence)
                order.append((sequence, id))
            }
        }
    }

    /// Moves an unfolded session's lease forward; false when the session is not unfolded.
    @discardableResult
    mutating func touch(_ id: SessionID, lease: SessionLease) -> Bool {
        guard let current = unfolded[id] else { return false }
        if lease.lastAccess > current.lease.lastAccess { unfolded[id]!.lease = lease }
        return true
    }

    /// The oldest unfolded sessions to fold so that the log holds at most `target` bytes (or
    /// `limit` of them, when that comes first), and the head the log can then be cut to.
    ///
    /// The rows before the oldest unfolded session's first row are no one's (folded or
    /// removed sessions'), so the head always moves at least that far, and to the end of the
    /// log when no session is unfolded: a burst of removals leaves only such rows.
    func plan(toAtMost target: Int, limit: Int) -> (ids: [SessionID], head: Int) {
        var ids: [SessionID] = []
        var remaining = bytes
        var newHead = head
        var index = orderStart
        while true {
            index = nextLive(from: index)
            let cut = index < order.count ? order[index].sequence : next
            remaining -= byteCount(from: newHead, to: cut)
            newHead = cut
            guard index < order.count, remaining > target, ids.count < limit else { break }
            ids.append(order[index].id)
            index += 1
        }
        return (ids, newHead)
    }

    /// Every unfolded session, and the head past every row.
    func planAll() -> (ids: [SessionID], head: Int) {
        (order[orderStart...].filter(isLive).map(\.id), next)
    }

    /// Notes `ids` folded and the rows before `newHead` deleted.
    mutating func folded(_ ids: [SessionID], head newHead: Int) {
        for id in ids { unfolded[id] = nil }
        bytes -= byteCount(from: head, to: newHead)
        sizesStart += newHead - head
        head = newHead
        // The first live entry is at `head` or later: every earlier entry is stale.
        orderStart = nextLive(from: orderStart)
        // Drop what was consumed once it is the larger part, so both arrays stay bounded.
        if sizesStart > 1024, sizesStart * 2 > sizes.count {
            sizes.removeFirst(sizesStart)
            sizesStart = 0
        }
        if orderStart > 1024, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }

    /// The index in `order`, from `index` on, of the first entry whose session is still
    /// unfolded since that row; `order.count` when there is none.
    private func nextLive(from index: Int) -> Int {
        var index = index
        while index < order.count, !isLive(order[index]) {
            index += 1
        }
        return index
    }

    /// Whether the entry's session is still unfolded since that row.
    private func isLive(_ entry: (sequence: Int, id: SessionID)) -> Bool {
        unfolded[entry.id]?.firstSequence == entry.sequence
    }

    private func byteCount(from start: Int, to end: Int) -> Int {
        guard end > start else { return 0 }
        let first = sizesStart + (start - head)
        return sizes[first..<first + (end - start)].reduce(0, +)
    }
}
