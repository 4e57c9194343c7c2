#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import JSON
import Presentation

/// Reading a stored session back: every value is rebuilt through the domain's own checked initializers.
extension SessionCodec {
    /// The id, token digest and snapshot in `bytes`, with `events` (the session's events in
    /// their binary form, oldest first) as its kept events; the caller restores (and so checks)
    /// the session. Rows of formats 1 and 2 hold their events, and have none apart. A row of
    /// format 5 must match its checksum, unless `checksumVerified` says the caller has checked
    /// it (start-up checks each row as it reads it, `SessionTable.readAll`).
    static func decode(
        _ bytes: [UInt8], events eventRows: [[UInt8]] = [], checksumVerified: Bool = false
    ) throws(ByteDecodingError) -> (
        id: SessionID, tokenDigest: SessionTokenDigest, snapshot: Session.Snapshot
    ) {
        let end = try checkedEnd(of: bytes, verify: !checksumVerified)
        var reader = ByteReader(bytes[..<end])
        let format = try reader.byte()
        guard (oldestReadable...version).contains(format) else {
            throw .invalid("format \(format) is not one this server reads")
        }
        reader.format = format
        let rawID = try reader.string()
        guard let id = SessionID(rawValue: rawID) else { throw .invalid("\(rawID) is not a session id") }
        guard let tokenDigest = SessionTokenDigest(bytes: try reader.data()) else {
            throw .invalid("the token digest is not 32 bytes")
        }
        let revision = try reader.integer()
        let createdAt = Date(timeIntervalSinceReferenceDate: try reader.double())
        let updatedAt = Date(timeIntervalSinceReferenceDate: try reader.double())
        let lastIssuedID = try reader.integer()
        let root = try reader.stack(depth: 0)
        let droppedThrough = try reader.integer()
        var events: [Event] = []
        if format >= eventsApart {
            for row in eventRows {
                var rowReader = ByteReader(row)
                events.append(try rowReader.event())
                guard rowReader.isAtEnd else { throw .invalid("bytes follow the end of an event") }
            }
        } else {
            guard eventRows.isEmpty else { throw .invalid("a format \(format) row has rows of events") }
            for _ in 0..<(try reader.count()) { events.append(try reader.event()) }
        }
        var outcomes: [PresentationOutcome] = []
        for _ in 0..<(try reader.count()) { outcomes.append(try reader.outcome()) }
        var replies: [(key: String, reply: RecordedReply)] = []
        for _ in 0..<(try reader.count()) {
            let key = try reader.string()
            let reply = RecordedReply(
                fingerprint: try reader.data(), status: try reader.integer(), body: try reader.data(),
                revision: try reader.integer())
            replies.append((key, reply))
        }
        guard reader.isAtEnd else { throw .invalid("bytes follow the end of the session") }
        let snapshot = Session.Snapshot(
            revision: revision, createdAt: createdAt, updatedAt: updatedAt, root: root, lastIssuedID: lastIssuedID,
            events: events, eventsDroppedThrough: droppedThrough, outcomes: outcomes,
            replies: ReplyLog(restoring: replies))
        return (id, tokenDigest, snapshot)
    }
}

extension SessionCodec {
    /// Where a stored session's own bytes end: before its checksum (checked unless `verify` is
    /// false) in format 5, at the end of an older row.
    static func checkedEnd(of bytes: [UInt8], verify: Bool = true) throws(ByteDecodingError) -> Int {
        try RowChecksum.checkedEnd(of: bytes, marker: checksummed, verify: verify) ?? bytes.count
    }
}

extension ByteReader {
    mutating func stack(depth: Int) throws(ByteDecodingError) -> Stack {
        guard depth < SessionCodec.maxDepth else { throw .invalid("stacks nest too deeply") }
        let id = try stackID()
        var path: [Screen] = []
        for _ in 0..<(try count()) { path.append(try screen()) }
        let presentation = try bool() ? try self.presentation(depth: depth) : nil
        return try domain { () throws(PresentationError) in try Stack(restoring: id, path: path, presentation: presentation) }
    }

    mutating func screen() throws(ByteDecodingError) -> Screen {
        let id = try screenID()
        let name = try string()
        let title = try optional()
        let params = try paramsText()
        let spec = try domain { () throws(PresentationError) in try ScreenSpec(name: name, title: title, paramsText: params) }
        var result: DeliveredResult?
        if try bool() {
            result = DeliveredResult(source: try source(), value: try json(depth: 0), revision: try integer())
        }
        var state: ScreenState?
        if format >= SessionCodec.screenStates, try bool() { state = try screenState() }
        return Screen(restoring: id, spec: spec, result: result, state: state)
    }

    mutating func presentation(depth: Int) throws(ByteDecodingError) -> Presentation {
        let id = try presentationID()
        let style = try named(PresentationStyle.init(rawValue:))
        let presentedBy = try screenID()
        let content: PresentationContent
        switch try byte() {
        case 0:
            let navigation = try bool()
            content = .stack(try stack(depth: depth + 1), navigation: navigation)
        case 1:
            let title = try optional()
            let message = try optional()
            var actions: [AlertAction] = []
            for _ in 0..<(try count()) {
                actions.append(AlertAction(id: try string(), title: try string(), role: try named(AlertActionRole.init(rawValue:))))
            }
            var fields: [AlertField] = []
            for _ in 0..<(try count()) {
                fields.append(AlertField(id: try string(), placeholder: try optional(), secure: try bool()))
            }
            content = .alert(
                try domain { () throws(PresentationError) in
                    try Alert(title: title, message: message, actions: actions, fields: fields)
                })
        case let other:
            throw .invalid("presentation content \(other)")
        }
        return Presentation(restoring: id, style: style, presentedBy: presentedBy, content: content)
    }

    /// Params as format 1 kept them (a tagged value) or as format 2 does (text); either way
    /// checked by the parser, so that nothing read from disk reaches an answer unchecked.
    mutating func paramsText() throws(ByteDecodingError) -> JSONText {
        let utf8 = format == 1 ? Array(JSONText(try json(depth: 0)).description.utf8) : try data()
        do {
            return try JSONText(parsing: utf8, maxDepth: SessionCodec.maxDepth, maxStringBytes: .max)
        } catch {
            throw .invalid("screen params are not JSON: \(error)")
        }
    }

    mutating func outcome() throws(ByteDecodingError) -> PresentationOutcome {
        let id = try presentationID()
        let style = try named(PresentationStyle.init(rawValue:))
        let presentedBy = try screenID()
        let status = try named(PresentationStatus.init(rawValue:))
        let result = try bool() ? try json(depth: 0) : nil
        return PresentationOutcome(id: id, style: style, presentedBy: presentedBy, status: status, result: result)
    }

    /// Runs a checked domain initializer, reporting its refusal as a codec error.
    private func domain<Value>(_ make: () throws(PresentationError) -> Value) throws(ByteDecodingError) -> Value {
        do {
            return try make()
        } catch {
            throw .invalid("\(error)")
        }
    }
}
