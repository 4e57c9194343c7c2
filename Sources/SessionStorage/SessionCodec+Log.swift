#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Presentation

/// The events of a log entry: a session's events new since its previous entry, each with its
/// revision, so that start-up can tell which of them the chunks of events already have. A chunk
/// (SessionTable) is packed the same way.
extension SessionCodec {
    /// A revision's events and the record (Event+Bytes.swift) of each.
    typealias EventRow = (revision: Int, record: [UInt8])

    /// The kept events of `session` above `revision`, packed for one column.
    static func packEvents(of session: Session, after revision: Int) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        session.forEachKeptEventRecord(after: revision) { eventRevision, record in
            writer.integer(eventRevision)
            writer.unsigned(UInt64(record.count))
            writer.raw(record)
        }
        return writer.bytes
    }

    /// Packed events without those at or below `revision`: a prefix, since they are packed in
    /// revision order. Bytes that do not unpack (this process packed them) are left whole:
    /// start-up skips events a session's history has dropped anyway.
    static func events(_ packed: [UInt8], after revision: Int) -> [UInt8] {
        var reader = ByteReader(packed)
        while !reader.isAtEnd {
            let start = reader.position
            guard let eventRevision = try? reader.integer(), (try? reader.skipData()) != nil else { return packed }
            if eventRevision > revision { return start == 0 ? packed : Array(packed[start...]) }
        }
        return []
    }

    static func unpackEvents(_ bytes: [UInt8]) throws(ByteDecodingError) -> [EventRow] {
        var reader = ByteReader(bytes)
        var rows: [EventRow] = []
        while !reader.isAtEnd {
            let revision = try reader.integer()
            rows.append((revision, try reader.data()))
        }
        return rows
    }

    /// The revision a stored session's bytes hold, read without decoding the rest: every
    /// format starts with the version, the id, the token digest and the revision.
    static func revision(of bytes: [UInt8]) throws(ByteDecodingError) -> Int {
        var reader = ByteReader(bytes)
        _ = try reader.byte()
        _ = try reader.data()
        _ = try reader.data()
        return try reader.integer()
    }
}

/// A row of the log: the changes of one group commit, one after another, each its kind, its
/// session's id, and what the kind needs. One row a commit rather than one a change: a row is
/// an insert when written and a B-tree delete when the log is cut, each about as dear for a
/// row of 30 changes as for one (docs/performance.md, item 67).
extension SessionCodec {
    /// One change as an entry of a log row holds it.
    enum LogEntry: Equatable {
        /// The session's state after a change, creation, import or token rotation, and its
        /// events new since its previous entry (`packEvents`).
        case saved(rawID: String, revision: Int, body: [UInt8], lease: SessionLease, events: [UInt8])
        /// The session's last access moved forward; only written for an unfolded session.
        case touched(rawID: String, lease: SessionLease)
        /// The session was deleted (its rows in the tables went in the same transaction).
        case removed(rawID: String)
    }

    private static let savedTag = UInt8(SessionTable.LogKind.saved.rawValue)
    private static let touchedTag = UInt8(SessionTable.LogKind.touched.rawValue)
    private static let removedTag = UInt8(SessionTable.LogKind.removed.rawValue)

    static func appendSaved(
        _ id: SessionID, revision: Int, body: [UInt8], lease: SessionLease, events: [UInt8], to writer: inout ByteWriter
    ) {
        writer.byte(savedTag)
        writer.string(id)
        writer.integer(revision)
        writer.data(body)
        write(lease, to: &writer)
        writer.data(events)
    }

    static func appendTouched(_ id: SessionID, lease: SessionLease, to writer: inout ByteWriter) {
        writer.byte(touchedTag)
        writer.string(id)
        write(lease, to: &writer)
    }

    static func appendRemoved(_ id: SessionID, to writer: inout ByteWriter) {
        writer.byte(removedTag)
        writer.string(id)
    }

    private static func write(_ lease: SessionLease, to writer: inout ByteWriter) {
        writer.double(lease.lastAccess.timeIntervalSince1970)
        writer.integer(lease.timeToLive)
    }

    static func logEntries(_ bytes: [UInt8]) throws(ByteDecodingError) -> [LogEntry] {
        var reader = ByteReader(bytes)
        var entries: [LogEntry] = []
        while !reader.isAtEnd {
            let tag = try reader.byte()
            let rawID = try reader.string()
            switch tag {
            case savedTag:
                let revision = try reader.integer()
                let body = try reader.data()
                let lease = try lease(&reader)
                entries.append(.saved(rawID: rawID, revision: revision, body: body, lease: lease, events: try reader.data()))
            case touchedTag:
                entries.append(.touched(rawID: rawID, lease: try lease(&reader)))
            case removedTag:
                entries.append(.removed(rawID: rawID))
            default:
                throw .invalid("a log entry of unknown kind \(tag)")
            }
        }
        return entries
    }

    private static func lease(_ reader: inout ByteReader) throws(ByteDecodingError) -> SessionLease {
        let lastAccess = try reader.double()
        guard let lease = storedLease(lastAccess: lastAccess, timeToLive: try reader.integer()) else {
            throw .invalid("a log entry's lease is not one this server writes")
        }
        return lease
    }

    /// A stored lease, or nil when no server wrote it: a time to live below 1 s (`Limits`
    /// grants at least 1) or a last access that is not a finite time. Such a lease read back
    /// would have its session taken for expired and removed at start-up.
    static func storedLease(lastAccess: Double, timeToLive: Int) -> SessionLease? {
        guard lastAccess.isFinite, timeToLive >= 1 else { return nil }
        return SessionLease(timeToLive: timeToLive, lastAccess: Date(timeIntervalSince1970: lastAccess))
    }
}
