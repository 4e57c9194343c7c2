import Foundation
import JSON
import Presentation

/// The bytes of one stored session: everything `Session.Snapshot` holds, with the id and token digest.
///
/// A compact binary form, written and read only here; the first byte is the format version, so a
/// later format can read rows an older server wrote. SQLite provides the crash safety around it.
enum SessionCodec {
    /// 2: a screen's params are their JSON text (1: a tagged JSON value, still read).
    static let version: UInt8 = 2
    static let oldestReadable: UInt8 = 1
    /// Deeper nesting (of JSON values, or of stacks) than any request could have made means corruption.
    static let maxDepth = 1024

    static func encode(_ session: Session) -> [UInt8] {
        // Everything `Session.Snapshot` holds, read part by part: the snapshot would copy the
        // kept events into an array first, on every durable change.
        var writer = ByteWriter()
        writer.byte(version)
        writer.string(session.id.rawValue)
        writer.data(session.tokenDigest.bytes)
        writer.integer(session.revision)
        writer.double(session.createdAt.timeIntervalSinceReferenceDate)
        writer.double(session.updatedAt.timeIntervalSinceReferenceDate)
        writer.integer(session.lastIssuedID)
        writer.write(session.root)
        writer.integer(session.eventsDroppedThrough)
        writer.unsigned(UInt64(session.keptEventCount))
        session.forEachKeptEvent { writer.write($0) }
        let outcomes = session.keptOutcomes
        writer.unsigned(UInt64(outcomes.count))
        for outcome in outcomes { writer.write(outcome) }
        let replies = session.replies.recorded
        writer.unsigned(UInt64(replies.count))
        for (key, reply) in replies {
            writer.string(key)
            writer.data(reply.fingerprint)
            writer.integer(reply.status)
            writer.data(reply.body)
            writer.integer(reply.revision)
        }
        return writer.bytes
    }
}

extension ByteWriter {
    mutating func write(_ stack: Stack) {
        string(stack.id.rawValue)
        unsigned(UInt64(stack.path.count))
        for screen in stack.path { write(screen) }
        bool(stack.presentation != nil)
        if let presentation = stack.presentation { write(presentation) }
    }

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
    }

    mutating func write(_ presentation: Presentation) {
        string(presentation.id.rawValue)
        string(presentation.style.rawValue)
        string(presentation.presentedBy.rawValue)
        switch presentation.content {
        case .stack(let stack, let navigation):
            byte(0)
            bool(navigation)
            write(stack)
        case .alert(let alert):
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
    }

    mutating func write(_ source: ResultSource) {
        switch source {
        case .screen(let id):
            byte(0)
            string(id.rawValue)
        case .presentation(let id):
            byte(1)
            string(id.rawValue)
        }
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: byte(0)
        case .bool(let bool): byte(bool ? 2 : 1)
        case .number(let spelling):
            byte(3)
            string(spelling)
        case .string(let text):
            byte(4)
            string(text)
        case .array(let items):
            byte(5)
            unsigned(UInt64(items.count))
            for item in items { write(item) }
        case .object(let members):
            byte(6)
            unsigned(UInt64(members.count))
            for member in members {
                string(member.key)
                write(member.value)
            }
        }
    }

    mutating func write(_ event: Event) {
        integer(event.revision)
        double(event.time.timeIntervalSinceReferenceDate)
        switch event.kind {
        case .pushed(let screen, let stack):
            byte(0)
            string(screen.rawValue)
            string(stack.rawValue)
        case .popped(let screens, let stack):
            byte(1)
            unsigned(UInt64(screens.count))
            for screen in screens { string(screen.rawValue) }
            string(stack.rawValue)
        case .replaced(let old, let new, let stack):
            byte(2)
            string(old.rawValue)
            string(new.rawValue)
            string(stack.rawValue)
        case .presented(let id, let style, let by, let stack):
            byte(3)
            string(id.rawValue)
            string(style.rawValue)
            string(by.rawValue)
            optional(stack?.rawValue)
        case .dismissed(let id, let by):
            byte(4)
            string(id.rawValue)
            string(by.rawValue)
        case .cancelled(let id, let by):
            byte(5)
            string(id.rawValue)
            string(by.rawValue)
        case .result(let to, let from, let value):
            byte(6)
            string(to.rawValue)
            write(from)
            write(value)
        case .rootSet(let screen, let stack):
            byte(7)
            string(screen.rawValue)
            string(stack.rawValue)
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
