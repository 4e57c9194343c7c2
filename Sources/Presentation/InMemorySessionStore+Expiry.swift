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
    /// then drops them in one write. If that write fails, the rows stay on disk, already expired,
    /// and the next start-up drops them. A session with a write under way (a change or a deletion
    /// that came just before its lease ran out) is left to the next sweep.
    @discardableResult
    public func removeExpired(now: Date) throws(PresentationError) -> Int {
        var removed: [(watchers: [Watch], stored: StoredSession)] = []
        for shard in shards {
            let candidates = shard.entries.withLock { Array($0) }
            for (id, entry) in candidates where entry.lease.isExpired(at: now) {
                guard let closed = entry.closeIfExpired(at: now) else { continue }
                shard.entries.withLock { entries in
                    if entries[id] === entry { entries.removeValue(forKey: id) }
                }
                removed.append(closed)
            }
        }
        guard !removed.isEmpty else { return 0 }
        sessionCount.subtract(removed.count, ordering: .relaxed)
        for closed in removed {
            for watch in closed.watchers { watch.tell(.deleted) }
        }
        try journal?.remove(removed.map(\.stored))
        return removed.count
    }

    /// Writes the last-access times that reads have moved since the last write, in one batch, so
    /// that a restart keeps idle deadlines within one sweep of the truth. Returns how many.
    @discardableResult
    public func writeLeases() throws(PresentationError) -> Int {
        guard let journal else { return 0 }
        var leases: [SessionID: SessionLease] = [:]
        var written: [(SessionEntry, SessionLease)] = []
        for shard in shards {
            for (id, entry) in shard.entries.withLock({ Array($0) }) {
                if let lease = entry.unwrittenLease {
                    leases[id] = lease
                    written.append((entry, lease))
                }
            }
        }
        guard !leases.isEmpty else { return 0 }
        try journal.touch(leases)
        for (entry, lease) in written {
            entry.markWritten(lease)
        }
        return leases.count
    }
}
