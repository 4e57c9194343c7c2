import Presentation

/// The events of a log row: a session's events new since its previous row, each with its
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
