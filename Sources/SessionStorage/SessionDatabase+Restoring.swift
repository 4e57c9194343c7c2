#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Presentation

/// Start-up's sessions, from what the file holds to sessions, on every core the process may use.
extension SessionDatabase {
    /// What `restore` makes of each of `found`, in order. Decoding a session and checking it
    /// is most of a start-up (about two thirds of its instructions, docs/performance.md,
    /// item 102) and each session's is its own, so the sessions are shared out among the
    /// `cores` the process may run on, in contiguous runs of at least `minimumRun` (sharing
    /// out fewer costs more than it saves); one core, or a few sessions, restores them in turn.
    /// Always on threads of `DeepTreeThread.joined`, whose stack decodes a session at any depth the
    /// options allow, whatever `ulimit -s` gave the main thread.
    static func restoreAll(
        _ found: [SessionTable.Found], limits: Limits, path: String, cores: Int, minimumRun: Int = 2_048
    ) -> [Result<(session: Session, trimmed: Bool), any Error>] {
        let workers = max(1, min(cores, found.count / minimumRun))
        let run = (found.count + workers - 1) / workers
        return Array(unsafeUninitializedCapacity: found.count) { buffer, initialized in
            // Each worker initialises its own run of slots and no other's; `DeepTreeThread.joined`
            // returns only once every worker has, so every slot is set when `initialized` says so.
            guard let base = buffer.baseAddress else { return }
            nonisolated(unsafe) let slots = base
            DeepTreeThread.joined(workers) { worker in
                for index in min(found.count, worker * run)..<min(found.count, (worker + 1) * run) {
                    (slots + index).initialize(to: Result { try restore(found[index], limits: limits, path: path) })
                }
            }
            initialized = found.count
        }
    }

    /// A session found in the file, back to a session: decoded, its id matching its key, every
    /// invariant checked; `trimmed` when `limits` kept fewer of its events than the file has.
    static func restore(_ found: SessionTable.Found, limits: Limits, path: String) throws
        -> (session: Session, trimmed: Bool)
    {
        do {
            // `readAll` checked the checksum of every row it read: of a table's row, or of the
            // log row that held this state.
            var decoded = try SessionCodec.decode(
                found.body, events: found.events.map(\.record), checksumVerified: true)
            // A row of format 1 or 2 with a newer state in the log: its older events are inline in
            // the row, and an earlier server logged only those new since (its next fold was to move
            // the rest out), so they are taken from there.
            if let inline = found.inlineBody {
                let first = decoded.snapshot.events.first?.revision ?? .max
                let older = try SessionCodec.decode(inline).snapshot.events.filter { $0.revision < first }
                decoded.snapshot.events.insert(contentsOf: older, at: 0)
            }
            // A chunk of events may still hold events that the session has dropped since (a drop
            // that falls inside a chunk, or a newer state in the log): restoring skips them.
            decoded.snapshot.events.removeAll { $0.revision <= decoded.snapshot.eventsDroppedThrough }
            // Servers before `updatedAt` was kept from going back wrote sessions changed at a
            // time before their creation (a clock stepped back, an import dated ahead): the
            // session is sound, and refusing it would refuse the whole file.
            if decoded.snapshot.updatedAt < decoded.snapshot.createdAt {
                decoded.snapshot.updatedAt = decoded.snapshot.createdAt
            }
            guard decoded.id.rawValue == found.rawID else {
                throw StorageOpenError.invalidSession(
                    path: path, id: found.rawID, reason: "its bytes name session \(decoded.id)")
            }
            let session = try Session(
                id: decoded.id, tokenDigest: decoded.tokenDigest, restoring: decoded.snapshot, limits: limits)
            return (session, session.eventsDroppedThrough > decoded.snapshot.eventsDroppedThrough)
        } catch let error as StorageOpenError {
            throw error
        } catch {
            throw StorageOpenError.invalidSession(path: path, id: found.rawID, reason: "\(error)")
        }
    }
}
