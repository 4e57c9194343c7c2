#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import JSON
import Presentation

/// The session tree on the wire (docs/api.md, "Session"), written straight to bytes.
extension JSONWriter {
    /// The whole session; `token` and `ttl` only in the creation answer, `presented` after a present.
    mutating func write(
        session: Session, token: SessionToken? = nil, presented: PresentationID? = nil, timeToLive: Int? = nil
    ) {
        var layout = TreeLayout()
        write(session: session, token: token, presented: presented, timeToLive: timeToLive, layout: &layout)
    }

    /// The same, noting in `layout` where the stacks' paths lie (SessionJSONCache).
    mutating func write(
        session: Session, token: SessionToken? = nil, presented: PresentationID? = nil, timeToLive: Int? = nil,
        layout: inout TreeLayout
    ) {
        writeHead(of: session)
        layout.treeStart = written
        write(stack: session.root, layout: &layout)
        if let token {
            key("token")
            writeString(token.rawValue)
        }
        if let presented {
            key("presentation")
            writeString(presented.rawValue)
        }
        if let timeToLive {
            key("ttl")
            writeInt(timeToLive)
        }
        endObject()
    }

    /// A session's members before its tree, and the tree's key: `{"id":…,"top":{…},"root":`.
    mutating func writeHead(of session: Session) {
        beginObject()
        writeIdentity(of: session)
        writeTopAndRootKey(of: session)
    }

    /// The end of a head, after its identity: the top, then the key the tree goes under.
    private mutating func writeTopAndRootKey(of session: Session) {
        key("top")
        write(top: session.top)
        key("root")
    }

    /// `writeHead(of:)` for the revision after the one whose head is `previous`: the id and the
    /// creation time, which a session keeps for life, are copied from it rather than spelled
    /// out again (a third of a push's head). False, with nothing written, when `previous` does
    /// not begin as `writeIdentity(of:)` writes it.
    mutating func writeHead(of session: Session, after previous: UnsafeBufferPointer<UInt8>) -> Bool {
        // `{"id":"<id>","revision":<digits>,"createdAt":"<timestamp>"`: the keys with the quotes
        // around them, and a timestamp of 24 characters (`writeTimestamp`).
        let idOpening: StaticString = #"{"id":""#
        let revisionKey: StaticString = #"","revision":"#
        let createdKey: StaticString = #","createdAt":""#
        let revisionStart = idOpening.utf8CodeUnitCount + SessionID.length + revisionKey.utf8CodeUnitCount
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard previous.count > revisionStart, Self.has(idOpening, in: previous, at: 0),
            Self.has(revisionKey, in: previous, at: revisionStart - revisionKey.utf8CodeUnitCount),
            let revisionEnd = previous[revisionStart...].firstIndex(where: { !isDigit($0) }),
            Self.has(createdKey, in: previous, at: revisionEnd),
            case let createdEnd = revisionEnd + createdKey.utf8CodeUnitCount + 24 + 1,
            createdEnd <= previous.count, previous[createdEnd - 1] == UInt8(ascii: "\"")
        else { return false }
        // Bytes copied in leave the writer's comma state as it was: the object is open with no
        // member counted, so the revision takes no comma, and `updatedAt`, after it, takes one.
        beginObject()
        appendVerbatim(UnsafeBufferPointer(rebasing: previous[1..<revisionStart]))
        writeInt(session.revision)
        appendVerbatim(UnsafeBufferPointer(rebasing: previous[revisionEnd..<createdEnd]))
        key("updatedAt")
        writeTimestamp(session.updatedAt)
        writeTopAndRootKey(of: session)
        return true
    }

    private static func has(_ literal: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        return offset + count <= bytes.count && memcmp(bytes.baseAddress! + offset, literal.utf8Start, count) == 0
    }

    /// A change's answer under `Prefer: return=minimal`: the session without its tree
    /// (`SessionSummary` in docs/api.md), and the new presentation's id after a present.
    mutating func write(summaryOf session: Session, presented: PresentationID?) {
        beginObject()
        writeIdentity(of: session)
        key("top")
        write(top: session.top)
        if let presented {
            key("presentation")
            writeString(presented.rawValue)
        }
        endObject()
    }

    /// The same summary cut from a whole session's JSON, such as a recorded answer: every
    /// member but `root`, in the order they came.
    mutating func write(summaryOf session: JSONValue) {
        guard case .object(let members) = session else { return write(session) }
        write(.object(members.filter { $0.key != "root" }))
    }

    /// The members every answer about a session starts with: which one, and how current.
    mutating func writeIdentity(of session: Session) {
        key("id")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SessionID.length) { spelling in
            session.id.spell(into: spelling)
            writeString(utf8: UnsafeBufferPointer(spelling))
        }
        key("revision")
        writeInt(session.revision)
        key("createdAt")
        writeTimestamp(session.createdAt)
        key("updatedAt")
        writeTimestamp(session.updatedAt)
    }

    mutating func write(top: Top) {
        beginObject()
        key("stack")
        writeString(top.stack.rawValue)
        key("screen")
        writeString(top.screen.rawValue)
        key("presentation")
        writeOptional(top.presentation?.rawValue)
        key("alert")
        writeOptional(top.alert?.rawValue)
        endObject()
    }

    mutating func write(stack: Stack) {
        var layout = TreeLayout()
        write(stack: stack, layout: &layout)
    }

    /// A stack and what is presented on it, noting its path in `layout` after those of the
    /// stacks it is presented on.
    private mutating func write(stack: Stack, layout: inout TreeLayout) {
        beginObject()
        key("id")
        writeString(stack.id.rawValue)
        key("path")
        beginArray()
        let index = layout.paths.count
        layout.paths.append(TreeLayout.Path())
        for screen in stack.path {
            // Where the screen starts, its comma included (none before the first).
            layout.paths[index].screenStarts.append(written)
            write(screen: screen)
        }
        layout.paths[index].end = written
        endArray()
        key("presentation")
        if let presentation = stack.presentation {
            write(presentation: presentation, layout: &layout)
        } else {
            writeNull()
        }
        endObject()
    }

    mutating func write(screen: Screen) {
        beginObject()
        key("id")
        writeString(screen.id.rawValue)
        key("screen")
        writeString(screen.name)
        key("title")
        writeOptional(screen.title)
        key("params")
        write(screen.paramsText)
        key("result")
        if let result = screen.result {
            beginObject()
            key("from")
            writeString(result.source.rawValue)
            key("value")
            write(result.value)
            key("revision")
            writeInt(result.revision)
            endObject()
        } else {
            writeNull()
        }
        key("state")
        if let state = screen.state { write(state: state) } else { writeNull() }
        endObject()
    }

    /// `{"name", "params"}`: a screen's state, in the tree and in a `state-set` event.
    mutating func write(state: ScreenState) {
        beginObject()
        key("name")
        writeString(state.name)
        key("params")
        write(state.paramsText)
        endObject()
    }

    /// A presentation, noting in `layout` the stack it holds as the topmost one, or the alert.
    mutating func write(presentation: Presentation, layout: inout TreeLayout) {
        beginObject()
        key("id")
        writeString(presentation.id.rawValue)
        key("style")
        writeString(presentation.style.rawValue)
        key("presentedBy")
        writeString(presentation.presentedBy.rawValue)
        switch presentation.content {
        case .stack(let stack, let navigation):
            key("navigation")
            writeBool(navigation)
            key("stack")
            write(stack: stack, layout: &layout)
        case .alert(let alert):
            key("alert")
            write(alert: alert)
            layout.alertOpen = true
        }
        endObject()
    }

    private mutating func write(alert: Alert) {
        beginObject()
        key("title")
        writeOptional(alert.title)
        key("message")
        writeOptional(alert.message)
        key("actions")
        beginArray()
        for action in alert.actions {
            beginObject()
            key("id")
            writeString(action.id)
            key("title")
            writeString(action.title)
            key("role")
            writeString(action.role.rawValue)
            endObject()
        }
        endArray()
        key("fields")
        beginArray()
        for field in alert.fields {
            beginObject()
            key("id")
            writeString(field.id)
            key("placeholder")
            writeOptional(field.placeholder)
            key("secure")
            writeBool(field.secure)
            endObject()
        }
        endArray()
        endObject()
    }

    /// A closed presentation's outcome, as an export lists it.
    mutating func write(outcome: PresentationOutcome) {
        beginObject()
        writeMembers(of: outcome)
        endObject()
    }

    /// A presentation's status (`GET …/presentations/{pid}`): its outcome, and the last value it
    /// emitted while open (`{"value", "revision"}`, null when none or closed).
    mutating func write(status outcome: PresentationOutcome, emitted: DeliveredResult?) {
        beginObject()
        writeMembers(of: outcome)
        key("emitted")
        if let emitted {
            beginObject()
            key("value")
            write(emitted.value)
            key("revision")
            writeInt(emitted.revision)
            endObject()
        } else {
            writeNull()
        }
        endObject()
    }

    private mutating func writeMembers(of outcome: PresentationOutcome) {
        key("id")
        writeString(outcome.id.rawValue)
        key("style")
        writeString(outcome.style.rawValue)
        key("presentedBy")
        writeString(outcome.presentedBy.rawValue)
        key("status")
        writeString(outcome.status.rawValue)
        key("result")
        if let result = outcome.result { write(result) } else { writeNull() }
    }

    mutating func writeOptional(_ string: String?) {
        if let string { writeString(string) } else { writeNull() }
    }
}

extension ResultSource {
    /// The id of the screen or presentation the result came from.
    var rawValue: String {
        switch self {
        case .screen(let id): id.rawValue
        case .presentation(let id): id.rawValue
        }
    }
}
