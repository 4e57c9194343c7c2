#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Expiry: sessions unused for their time-to-live are removed from memory and the journal.
extension InMemorySessionStore {
    /// Removes every session whose lease ran out by `now`, tells its watchers `.deleted`, and
    /// returns how many went. A lookup already treats such a session as gone; this frees it.
    ///
    /// Entries are closed first, under their own locks, so no change can land after; the journal
    /// then drops them in one write. If that write fails (a full disk), the rows stay on disk,
    /// already expired, and so do their bytes in `storedBytes`: they are kept (`unremoved`) and
    /// go with the next sweep's write. Dropped from memory alone, they were never removed until
    /// a restart, and their bytes held `--max-stored-bytes` against every creation meanwhile.
    /// A session with a write under way (a change or a deletion that came just before its lease
    /// ran out) is left to the next sweep.
    @discardableResult
    public func removeExpired(now: Date) throws(PresentationError) -> Int {
        let removed = toldDeleted(closeExpired(now: now))
        let retried = unremoved.withLock { pending in
            defer { pending = [] }
            return pending
        }
        guard !removed.isEmpty || !retried.isEmpty else { return 0 }
        do {
            try journal?.remove(retried + removed)
        } catch {
            unremoved.withLock { $0 += retried + removed }
            throw error
        }
        return removed.count
    }

    /// For a creation about to be refused at `maxSessions`: removes the sessions that expired
    /// since the last sweep, and says whether any went. An expired session answers 404 at once,
    /// but the sweep that frees it comes up to 30 s later; until then it held a slot, and a
    /// creation was refused for a session nobody could use any more.
    ///
    /// At most once a second: each call looks at every session, and a flood of creations at
    /// the limit must not each pay for that. A call that comes while another looks waits for
    /// it, then finds this second's look done: the room it freed is there to take (16
    /// creations at once at a full store of expired sessions: 15 were refused while the one
    /// that looked freed 2,000 places). The journal's removal is queued, not waited for,
    /// so the creation does not wait on the disk for sessions it never touched; if that write
    /// fails the rows stay, already expired, for the next sweep to remove, as after a failed one.
    func removeExpiredForRoom(now: Date) -> Bool {
        let second = Int(now.timeIntervalSinceReferenceDate.rounded(.down))
        let closed = roomLookSecond.withLock { last -> [ClosedSession] in
            guard second != last else { return [] }
            last = second
            return closeExpired(now: now)
        }
        let removed = toldDeleted(closed)
        guard !removed.isEmpty else { return false }
        journal?.remove(removed) { [self] failure in
            if failure != nil { unremoved.withLock { $0 += removed } }
        }
        return true
    }

    /// A session closed and dropped from memory: its watchers, still to be told, and what the
    /// journal must remove.
    private typealias ClosedSession = (watchers: [Watch], stored: StoredSession)

    /// Closes every session whose lease ran out by `now` and drops it from memory; its watchers
    /// are told by `toldDeleted`, once the caller holds no lock (they may call back into the store).
    private func closeExpired(now: Date) -> [ClosedSession] {
        var removed: [ClosedSession] = []
        for shard in shards {
            let candidates = shard.entries.withLock { Array($0) }
            for (id, entry) in candidates where entry.lease.isExpired(at: now) {
                guard let closed = entry.closeIfExpired(at: now) else { continue }
                shard.entries.withLock { entries in
                    if entries[id] === entry { entries.removeValue(forKey: id) }
                }
                // Its place is free from now, not once the walk is done: a creation at a full
                // store meanwhile, whose look this second is spent, was refused for it.
                sessionCount.subtract(1, ordering: .relaxed)
                removed.append(closed)
            }
        }
        return removed
    }

    /// Tells the watchers of sessions `closeExpired` closed that they are gone: what the journal
    /// must then remove.
    private func toldDeleted(_ closed: [ClosedSession]) -> [StoredSession] {
        for session in closed {
            for watch in session.watchers { watch.tell(.deleted) }
        }
        return closed.map(\.stored)
    }

    /// Writes the last-access times that reads have moved since the last write, in one batch, so
    /// that a restart keeps idle deadlines within one sweep of the truth. Returns how many.
    ///
    /// What reads noted for the ticks (`NearDeadlineRenewals`) is written here too, and no longer
    /// noted: with a sweep every second every tick is a whole one, no tick between took the
    /// table, and each session read, deleted or expired since stayed in it, tree and all. Taken
    /// before the scan, so that a read during it is noted again.
    @discardableResult
    public func writeLeases() throws(PresentationError) -> Int {
        guard let journal else { return 0 }
        let noted = nearDeadlines?.take() ?? [:]
        var moved: [(SessionID, SessionEntry, SessionLease)] = []
        for shard in shards {
            for (id, entry) in shard.entries.withLock({ Array($0) }) {
                if let lease = entry.unwrittenLease { moved.append((id, entry, lease)) }
            }
        }
        do {
            try write(moved, to: journal)
        } catch {
            // Noted again, for the next tick to try.
            nearDeadlines?.keep(noted.lazy.map { ($0.key, $0.value) })
            throw error
        }
        return moved.count
    }

    /// Between two sweeps: writes the deadlines that reads moved
    /// (`NearDeadlineRenewals`) when the one on disk comes before `deadline` (the next sweep's
    /// end), in one batch, so that a kill loses at most a tick of them. The others stay noted
    /// until their turn, or the sweep's `writeLeases`. Returns how many were written.
    @discardableResult
    public func writeNearDeadlines(writtenExpiringBefore deadline: Date) throws(PresentationError) -> Int {
        guard let journal, let nearDeadlines else { return 0 }
        var near: [(SessionID, SessionEntry, SessionLease)] = []
        var waiting: [(SessionID, SessionEntry)] = []
        for (id, entry) in nearDeadlines.take() {
            if let lease = entry.unwrittenLease(writtenExpiringBefore: deadline) {
                near.append((id, entry, lease))
            } else if entry.renewalPending {
                waiting.append((id, entry))
            }
        }
        nearDeadlines.keep(waiting)
        do {
            try write(near, to: journal)
        } catch {
            // Noted again, for the next tick to try.
            nearDeadlines.keep(near.map { ($0.0, $0.1) })
            throw error
        }
        return near.count
    }

    /// Writes `leases` in one batch, and marks each entry as having its lease on disk.
    private func write(_ leases: [(SessionID, SessionEntry, SessionLease)], to journal: any SessionJournal)
        throws(PresentationError)
    {
        guard !leases.isEmpty else { return }
        try journal.touch(Dictionary(leases.map { ($0.0, $0.2) }, uniquingKeysWith: { $1 }))
        for (_, entry, lease) in leases {
            entry.markWritten(lease)
        }
    }
}
