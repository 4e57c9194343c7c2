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
        try unpackEvents(bytes[...])
    }

    static func unpackEvents(_ bytes: ArraySlice<UInt8>) throws(ByteDecodingError) -> [EventRow] {
        var reader = ByteReader(bytes)
        var rows: [EventRow] = []
        while !reader.isAtEnd {
            let revision = try reader.integer()
            rows.append((revision, try reader.data()))
        }
        return rows
    }

    /// The first byte of a chunk of events with a checksum. A chunk written before checksums
    /// starts with its first event's revision, zigzag-encoded (`ByteWriter.integer`): twice the
    /// revision, which is never negative, so an even byte. Any odd byte would do.
    static let chunkMarker: UInt8 = 0xA5

    /// Packed events (`packEvents`) as a row of `event_chunks` holds them: the marker, the
    /// events, their checksum.
    static func chunk(of packed: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: packed.count + 1 + RowChecksum.size)
        writer.byte(chunkMarker)
        writer.raw(packed[...])
        writer.seal()
        return writer.bytes
    }

    /// The events of a row of `event_chunks`, checked against its checksum; a chunk written
    /// before checksums is read as it was. An empty chunk, which no server wrote, is refused.
    static func unpackChunk(_ bytes: [UInt8]) throws(ByteDecodingError) -> [EventRow] {
        guard let first = bytes.first else { throw .invalid("the chunk is empty") }
        let rows: [EventRow]
        if let end = try RowChecksum.checkedEnd(of: bytes, marker: chunkMarker) {
            rows = try unpackEvents(bytes[1..<end])
        } else {
            guard first & 1 == 0 else { throw .invalid("a chunk starts with \(first), which no server writes") }
            rows = try unpackEvents(bytes[...])
        }
        guard !rows.isEmpty else { throw .invalid("the chunk holds no events") }
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

    /// The first byte of a log row with a checksum (`sealLogRow`). A row written before
    /// checksums starts with its first entry's kind, 0 to 2; this is 3 flipped bits or more
    /// away from each.
    static let logRowMarker: UInt8 = 0xC3

    /// Starts a log row: its marker. Entries follow (`appendSaved`...), then `sealLogRow`.
    static func beginLogRow(_ writer: inout ByteWriter) {
        writer.byte(logRowMarker)
    }

    /// Ends a log row with its checksum.
    static func sealLogRow(_ writer: inout ByteWriter) {
        writer.seal()
    }

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

    /// The entries of a log row, checked against its checksum; a row written before checksums
    /// is read as it was. An empty row, which no server wrote, is refused.
    static func logEntries(_ bytes: [UInt8]) throws(ByteDecodingError) -> [LogEntry] {
        var entries: [LogEntry] = []
        try logEntries(payload(ofLogRow: bytes), into: &entries)
        guard !entries.isEmpty else { throw .invalid("the row holds no entries") }
        return entries
    }

    /// The sessions a log row's entries name, as far as its bytes read, checksum or not: for
    /// the message that refuses it.
    static func sessionIDs(inLogRow bytes: [UInt8]) -> [String] {
        var entries: [LogEntry] = []
        let sealed = bytes.first == logRowMarker && bytes.count > RowChecksum.size
        try? logEntries(sealed ? bytes[1..<bytes.count - RowChecksum.size] : bytes[...], into: &entries)
        var ids: [String] = []
        for entry in entries {
            let rawID: String
            switch entry {
            case .saved(let id, _, _, _, _), .touched(let id, _), .removed(let id): rawID = id
            }
            if SessionID(rawValue: rawID) != nil, !ids.contains(rawID) { ids.append(rawID) }
        }
        return ids
    }

    private static func payload(ofLogRow bytes: [UInt8]) throws(ByteDecodingError) -> ArraySlice<UInt8> {
        guard !bytes.isEmpty else { throw .invalid("the row is empty") }
        guard let end = try RowChecksum.checkedEnd(of: bytes, marker: logRowMarker) else { return bytes[...] }
        return bytes[1..<end]
    }

    /// Appends the entries `bytes` holds to `entries`, one by one: those before a failure are kept.
    private static func logEntries(_ bytes: ArraySlice<UInt8>, into entries: inout [LogEntry]) throws(ByteDecodingError) {
        var reader = ByteReader(bytes)
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
