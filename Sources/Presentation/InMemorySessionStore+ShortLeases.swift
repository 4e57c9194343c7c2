#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension InMemorySessionStore {
    /// Between two sweeps: writes the deadlines that reads of short-lived sessions moved
    /// (`ShortLeaseRenewals`) when the one on disk comes before `deadline` (the next sweep's
    /// end), in one batch, so that a kill loses at most a tick of them. The others stay noted
    /// until their turn, or the sweep's `writeLeases`. Returns how many were written.
    @discardableResult
    public func writeShortLeases(writtenExpiringBefore deadline: Date) throws(PresentationError) -> Int {
        guard let journal, let shortLeases else { return 0 }
        var leases: [SessionID: SessionLease] = [:]
        var written: [(SessionID, SessionEntry, SessionLease)] = []
        var waiting: [(SessionID, SessionEntry)] = []
        for (id, entry) in shortLeases.take() {
            if let lease = entry.unwrittenLease(writtenExpiringBefore: deadline) {
                leases[id] = lease
                written.append((id, entry, lease))
            } else if entry.unwrittenLease != nil {
                waiting.append((id, entry))
            }
        }
        shortLeases.keep(waiting)
        guard !leases.isEmpty else { return 0 }
        do {
            try journal.touch(leases)
        } catch {
            // Noted again, for the next tick to try.
            shortLeases.keep(written.map { ($0.0, $0.1) })
            throw error
        }
        for (_, entry, lease) in written {
            entry.markWritten(lease)
        }
        return leases.count
    }
}
