#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import CSQLite
import Presentation

/// Start-up: every session as the file holds it (its row and events, then the log's newer rows
/// over them), and the log folded into the tables before the server takes any request.
extension SessionTable {
    /// A session as start-up finds it.
    struct Found {
        let rawID: String
        var body: [UInt8]
        var revision: Int
        var lease: SessionLease
        /// Oldest first.
        var events: [SessionCodec.EventRow]
        /// The newest revision the chunks of events run through; nil when there are none.
        var tableEventsThrough: Int?
        /// The log had a newer state of it than its row: the tables lack its latest state.
        var inLog: Bool
        /// Its row's bytes when they hold its events inline (formats 1 and 2) and the log's newer
        /// state replaced them: the events older than the log's are still there.
        var inlineBody: [UInt8]? = nil
    }

    /// Every session the file holds, in the order first found: the tables' rows, with the
    /// log's entries applied over them in order. An entry older than what the tables hold (its
    /// session was folded after it) is skipped; a removal forgets the session.
    func readAll() throws -> [Found] {
        var found: [Found?] = []
        var index: [String: Int] = [:]
        var chunks = try allEvents()
        let select = try connection.prepare("SELECT id, body, last_access, ttl FROM sessions")
        while try select.step() {
            let rawID = select.text(0) ?? ""
            let body = select.blob(1)
            let events = chunks.removeValue(forKey: rawID) ?? []
            // A lease read as it comes would take a damaged one (text read as 0, a negative time
            // to live) for one that ran out, and the session would be removed as expired, quietly.
            guard select.isNumber(2), select.isNumber(3),
                let lease = SessionCodec.storedLease(lastAccess: select.real(2), timeToLive: select.integer(3))
            else {
                throw SQLiteError(code: SQLITE_CORRUPT, message: "session \(rawID): its lease is not one this server writes")
            }
            // Checked here, once: a row the log has a newer state of is never decoded, and its
            // revision, damaged, could have decided which of the two wins.
            do {
                _ = try SessionCodec.checkedEnd(of: body)
            } catch {
                throw SQLiteError(
                    code: SQLITE_CORRUPT, message: "session \(rawID), its row in the sessions table: \(error)")
            }
            index[rawID] = found.count
            found.append(
                Found(
                    rawID: rawID, body: body, // A row that does not decode is reported, naming its session, when it is restored.
                    revision: (try? SessionCodec.revision(of: body)) ?? .min,
                    lease: lease, events: events, tableEventsThrough: events.last?.revision, inLog: false))
        }
        let rows = try connection.prepare("SELECT seq, entries FROM log ORDER BY seq")
        var last = 0
        while try rows.step() {
            last = rows.integer(0)
            let entries: [SessionCodec.LogEntry]
            let row = rows.blob(1)
            do {
                entries = try SessionCodec.logEntries(row)
            } catch {
                let ids = SessionCodec.sessionIDs(inLogRow: row)
                let named = ids.isEmpty ? "" : ", with entries of session \(ids.joined(separator: ", "))"
                throw SQLiteError(code: SQLITE_CORRUPT, message: "log row \(last) in the log table\(named): \(error)")
            }
            for entry in entries {
                switch entry {
                case .removed(let rawID):
                    if let slot = index[rawID] { found[slot] = nil }
                case .touched(let rawID, let lease):
                    if let slot = index[rawID], found[slot] != nil { found[slot]!.lease.moveForward(to: lease) }
                case .saved(let rawID, let revision, let body, let lease, let packed):
                    let events: [SessionCodec.EventRow]
                    do {
                        events = try SessionCodec.unpackEvents(packed)
                    } catch {
                        throw SQLiteError(code: SQLITE_CORRUPT, message: "log row \(last), of session \(rawID): \(error)")
                    }
                    if let slot = index[rawID], var session = found[slot] {
                        guard revision >= session.revision else { continue }
                        let through = session.events.last?.revision ?? .min
                        session.events += events.filter { $0.revision > through }
                        if session.tableEventsThrough == nil, session.inlineBody == nil,
                            let format = session.body.first, format < SessionCodec.eventsApart
                        {
                            session.inlineBody = session.body
                        }
                        session.body = body
                        session.revision = revision
                        session.lease.moveForward(to: lease)
                        session.inLog = true
                        found[slot] = session
                    } else {
                        index[rawID] = found.count
                        found.append(
                            Found(
                                rawID: rawID, body: body, revision: revision, lease: lease, events: events,
                                tableEventsThrough: nil, inLog: true))
                    }
                }
            }
        }
        log = SessionLog(next: last + 1)
        return found.compactMap { $0 }
    }

    /// Every session's events from its chunks, oldest first, by session id: one scan of the
    /// table in key order, where a query a session spent a sixth of a start-up finding each
    /// session's chunks (docs/performance.md, item 101).
    private func allEvents() throws(SQLiteError) -> [String: [SessionCodec.EventRow]] {
        let select = try connection.prepare("SELECT session, body, through FROM event_chunks ORDER BY session, through")
        var events: [String: [SessionCodec.EventRow]] = [:]
        // Rows come session by session: each session's events are gathered, then stored once.
        var current: (id: String, events: [SessionCodec.EventRow])?
        while try select.step() {
            let rawID = select.text(0) ?? ""
            if current?.id != rawID {
                if let done = current { events[done.id] = done.events }
                current = (rawID, [])
            }
            do {
                current!.events += try SessionCodec.unpackChunk(select.blob(1))
            } catch {
                throw SQLiteError(
                    code: SQLITE_CORRUPT,
                    message: "a chunk of events of session \(rawID) (through revision \(select.integer(2)))"
                        + " in the event_chunks table: \(error)")
            }
        }
        if let done = current { events[done.id] = done.events }
        return events
    }

    /// Notes a live session read at start-up, as `found` had it; `trimmed` when restoring
    /// dropped events the file keeps (a lower `eventsKept` than it was written under). Returns
    /// the bytes it takes in the file, for the store to hand back with its next write.
    func noteLoaded(_ session: Session, _ found: Found, trimmed: Bool) -> Int {
        // A trimmed session's row is written anew: the found one says fewer events were
        // dropped than the chunks `settle` deletes, which the next start-up would find missing.
        let body = trimmed ? SessionCodec.encode(session) : found.body
        let bytes = Self.storedSize(of: session, body: body)
        storedBytes += bytes
        if found.tableEventsThrough == nil { inlineEvents.insert(session.id) }
        // Folded by `settle`: the tables lack its latest state, or keep events it no longer
        // does, which no later fold would delete unless its history drops past them.
        if found.inLog || trimmed {
            recovered.append(
                SessionLog.Unfolded(
                    id: session.id, revision: session.revision, body: body, lease: found.lease,
                    events: SessionCodec.packEvents(of: session, after: found.tableEventsThrough ?? .min),
                    eventsDroppedThrough: session.eventsDroppedThrough, tableDroppedThrough: 0, firstSequence: 0))
        }
        return bytes
    }

    /// In one transaction: deletes `expired`, folds every session found newer in the log, and
    /// empties the log. Start-up then begins with the tables holding everything.
    func settle(removing expired: [SessionID]) throws(SQLiteError) {
        try transaction { () throws(SQLiteError) in
            for id in expired { try removeRows(of: id) }
            for unfolded in recovered { try write(unfolded) }
            try cutLog.bind(.integer(log.next))
            try cutLog.run()
        }
        for unfolded in recovered { noteFolded(unfolded) }
        recovered = []
    }
}

extension SessionLease {
    /// The later of the two last accesses, and `other`'s time to live.
    mutating func moveForward(to other: SessionLease) {
        lastAccess = max(lastAccess, other.lastAccess)
        timeToLive = other.timeToLive
    }
}
