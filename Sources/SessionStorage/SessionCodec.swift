import JSON
import Presentation

/// The bytes of one stored session: everything `Session.Snapshot` holds but its kept events,
/// with the id and token digest. The events are stored apart (SessionTable's chunks), each in
/// its binary form (Event+Bytes.swift), so that a change writes its new events rather than
/// the whole history again.
///
/// A compact binary form, written and read only here; the first byte is the format version, so a
/// later format can read rows an older server wrote. SQLite provides the crash safety around it,
/// and the checksum the row ends with (`RowChecksum`) tells a row damaged since it was written.
enum SessionCodec {
    /// 5: format 4 and a checksum (`RowChecksum`), of everything before it, at the end. Its
    /// version byte turned over to 4 (or any older format) leaves those 8 bytes after the
    /// session, and is caught anyway (`RowChecksum.checkedEnd`).
    /// 4: a screen's state follows its result (3 and older have no states).
    /// 3: the kept events are stored apart, in chunks (1 and 2, still read: they are inline).
    /// 2: a screen's params are their JSON text (1: a tagged JSON value).
    static let version: UInt8 = 5
    static let oldestReadable: UInt8 = 1
    /// The first format that ends with a checksum: its version byte is the row's marker.
    static let checksummed: UInt8 = 5
    /// The first format whose screens may have a state.
    static let screenStates: UInt8 = 4
    /// The first format whose events are not inline.
    static let eventsApart: UInt8 = 3
    /// Deeper nesting (of JSON values, or of stacks) than any request could have made means corruption.
    static let maxDepth = ByteReader.maxDepth

    static func encode(_ session: Session) -> [UInt8] {
        // Everything `Session.Snapshot` holds, read part by part: the snapshot would copy the
        // kept events into an array first, on every durable change.
        // A session of a few screens encodes to 400-600 bytes. Room for 992 stays within what
        // glibc serves from its per-thread cache (1,032 bytes), which a 1,024-byte array with
        // its header was past, on every durable change (item 57); 512 was too little once a
        // session's ids and revisions had grown a digit or two, and every encode of an older
        // session grew the buffer (docs/performance.md, item 61). Larger sessions grow it.
        var writer = ByteWriter(capacity: 992)
        writer.byte(version)
        writer.string(session.id)
        writer.data(session.tokenDigest.bytes)
        writer.integer(session.revision)
        writer.double(session.createdAt.timeIntervalSinceReferenceDate)
        writer.double(session.updatedAt.timeIntervalSinceReferenceDate)
        writer.integer(session.lastIssuedID)
        writer.writeLevels(of: session)
        writer.integer(session.eventsDroppedThrough)
        writer.unsigned(UInt64(session.keptOutcomeCount))
        session.forEachKeptOutcome { writer.write($0) }
        let replies = session.replies.recorded
        writer.unsigned(UInt64(replies.count))
        for (key, reply) in replies {
            writer.string(key)
            writer.data(reply.fingerprint)
            writer.integer(reply.status)
            writer.data(reply.body)
            writer.integer(reply.revision)
        }
        writer.seal()
        return writer.bytes
    }
}

extension ByteWriter {
    mutating func write(_ screen: Screen) {
        string(screen.id.rawValue)
        string(screen.name)
        optional(screen.title)
        text(screen.paramsText)
        bool(screen.result != nil)
        if let result = screen.result {
            write(result.source)
            write(result.value)
            integer(result.revision)
        }
        bool(screen.state != nil)
        if let state = screen.state { write(state) }
    }

    /// The tree as `write(session.root)` writes it, level by level from the session's parts,
    /// without building the nested root (a copy of every stack above the root, on every
    /// durable change).
    mutating func writeLevels(of session: Session) {
        session.forEachLevel { stack, presented in
            string(stack.id.rawValue)
            unsigned(UInt64(stack.path.count))
            for screen in stack.path { write(screen) }
            bool(presented != nil)
            guard let presented else { return }
            string(presented.id.rawValue)
            string(presented.style.rawValue)
            string(presented.presentedBy.rawValue)
            if let alert = presented.alert {
                write(alert)
            } else {
                // The presented stack follows: it is the next level.
                byte(0)
                bool(presented.navigation)
            }
        }
    }

    /// An alert's tag and fields.
    mutating func write(_ alert: Alert) {
        byte(1)
        optional(alert.title)
        optional(alert.message)
        unsigned(UInt64(alert.actions.count))
        for action in alert.actions {
            string(action.id)
            string(action.title)
            string(action.role.rawValue)
        }
        unsigned(UInt64(alert.fields.count))
        for field in alert.fields {
            string(field.id)
            optional(field.placeholder)
            bool(field.secure)
        }
    }

    mutating func write(_ outcome: PresentationOutcome) {
        string(outcome.id.rawValue)
        string(outcome.style.rawValue)
        string(outcome.presentedBy.rawValue)
        string(outcome.status.rawValue)
        bool(outcome.result != nil)
        if let result = outcome.result { write(result) }
    }
}
