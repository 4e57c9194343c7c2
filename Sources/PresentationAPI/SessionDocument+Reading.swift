#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import JSON
import Presentation

/// Reading an exported document back, strictly: every member known and typed, every id well
/// formed; `Session(id:tokenDigest:restoring:limits:)` then checks how the parts fit together.
extension SessionDocument {
    /// The snapshot in `fields`, and the `ttl` the importer asks for; a tree with more than
    /// `maxPresentationDepth` presentations is refused as it is read.
    static func read(
        _ fields: inout FieldReader, maxPresentationDepth: Int
    ) throws -> (snapshot: Session.Snapshot, timeToLive: Int?) {
        guard try fields.requiredString("format") == format else {
            throw APIError.invalidField(pointer: fields.path("format"), reason: "must be \"\(format)\"")
        }
        _ = try fields.string("exportedFrom")
        let timeToLive = try fields.integer("ttl", in: OperationDecoding.timeToLiveRange)
        guard let revision = try fields.integer("revision", in: 1...Int.max) else {
            throw APIError.missingField(pointer: fields.path("revision"))
        }
        let createdAt = try date("createdAt", &fields)
        let updatedAt = try date("updatedAt", &fields)
        guard let lastIssuedID = try fields.integer("lastIssuedID", in: 1...Int.max) else {
            throw APIError.missingField(pointer: fields.path("lastIssuedID"))
        }
        guard var rootFields = try fields.object("root") else { throw APIError.missingField(pointer: fields.path("root")) }
        let root = try stack(&rootFields, depth: 0, maxDepth: maxPresentationDepth)
        let droppedThrough = try fields.integer("eventsDroppedThrough", in: 0...Int.max) ?? 0
        let events = try (fields.array("events") ?? []).enumerated().map { index, value in
            var eventFields = try FieldReader(value, at: fields.path("events") + "/\(index)")
            return try event(&eventFields)
        }
        let outcomes = try (fields.array("outcomes") ?? []).enumerated().map { index, value in
            var outcomeFields = try FieldReader(value, at: fields.path("outcomes") + "/\(index)")
            return try outcome(&outcomeFields)
        }
        try fields.finish()
        let snapshot = Session.Snapshot(
            revision: revision, createdAt: createdAt, updatedAt: updatedAt, root: root, lastIssuedID: lastIssuedID,
            events: events, eventsDroppedThrough: droppedThrough, outcomes: outcomes)
        return (snapshot, timeToLive)
    }

    /// The stack held by the `depth`th presentation, the root's being 0. Past the server's own
    /// limit, refused before reading further, which stops a hostile document before the thread's
    /// stack does. (A fixed bound of 1,000 refused what `--max-presentation-depth 1000` made.)
    private static func stack(_ fields: inout FieldReader, depth: Int, maxDepth: Int) throws -> Stack {
        guard depth <= maxDepth else { throw PresentationError.presentationsTooDeep(limit: maxDepth) }
        let id = try identifier("id", &fields, as: StackID.self)
        guard let items = try fields.array("path") else { throw APIError.missingField(pointer: fields.path("path")) }
        let path = try items.enumerated().map { index, value in
            var screenFields = try FieldReader(value, at: fields.path("path") + "/\(index)")
            return try screen(&screenFields)
        }
        var presentation: Presentation?
        if var presentationFields = try fields.object("presentation") {
            presentation = try self.presentation(&presentationFields, depth: depth, maxDepth: maxDepth)
        }
        try fields.finish()
        return try Stack(restoring: id, path: path, presentation: presentation)
    }

    private static func screen(_ fields: inout FieldReader) throws -> Screen {
        let id = try identifier("id", &fields, as: ScreenID.self)
        let spec = try OperationDecoding.screen(from: &fields)
        var result: DeliveredResult?
        if var resultFields = try fields.object("result") {
            let source = try self.source("from", &resultFields)
            let value = try resultValue(&resultFields)
            guard let revision = try resultFields.integer("revision", in: 1...Int.max) else {
                throw APIError.missingField(pointer: resultFields.path("revision"))
            }
            try resultFields.finish()
            result = DeliveredResult(source: source, value: value, revision: revision)
        }
        var state: ScreenState?
        if var stateFields = try fields.object("state") { state = try self.state(&stateFields) }
        try fields.finish()
        return Screen(restoring: id, spec: spec, result: result, state: state)
    }

    /// A screen's state, `{"name", "params"?}`, in the tree or in a `state-set` event.
    private static func state(_ fields: inout FieldReader) throws -> ScreenState {
        let state = try OperationDecoding.screenState(named: "name", from: &fields)
        try fields.finish()
        return state
    }

    private static func presentation(_ fields: inout FieldReader, depth: Int, maxDepth: Int) throws -> Presentation {
        let id = try identifier("id", &fields, as: PresentationID.self)
        let style = try named("style", &fields, as: PresentationStyle.self)
        let presentedBy = try identifier("presentedBy", &fields, as: ScreenID.self)
        let content: PresentationContent
        if var alertFields = try fields.object("alert") {
            content = .alert(try OperationDecoding.alert(from: &alertFields))
        } else if var stackFields = try fields.object("stack") {
            let navigation = try fields.bool("navigation") ?? true
            content = .stack(try stack(&stackFields, depth: depth + 1, maxDepth: maxDepth), navigation: navigation)
        } else {
            throw APIError.missingField(pointer: fields.path("stack"))
        }
        try fields.finish()
        return Presentation(restoring: id, style: style, presentedBy: presentedBy, content: content)
    }

    private static func event(_ fields: inout FieldReader) throws -> Event {
        guard let revision = try fields.integer("revision", in: 1...Int.max) else {
            throw APIError.missingField(pointer: fields.path("revision"))
        }
        let time = try date("time", &fields)
        let type = try fields.requiredString("type")
        let kind: EventKind
        switch type {
        case "pushed":
            kind = .pushed(screen: try identifier("screen", &fields), stack: try identifier("stack", &fields))
        case "popped":
            let screens = try (fields.array("screens") ?? []).enumerated().map { index, value in
                guard case .string(let raw) = value, let id = ScreenID(rawValue: raw) else {
                    throw APIError.invalidField(pointer: fields.path("screens") + "/\(index)", reason: "not a valid id")
                }
                return id
            }
            kind = .popped(screens: screens, stack: try identifier("stack", &fields))
        case "replaced":
            kind = .replaced(
                old: try identifier("replaced", &fields), new: try identifier("screen", &fields),
                stack: try identifier("stack", &fields))
        case "presented":
            let stack = try fields.string("stack").map { raw throws in
                try OperationDecoding.identifier(raw, at: fields.path("stack"), as: StackID.self)
            }
            // Left out by documents exported before presented events named the screen.
            let screen = try fields.string("screen").map { raw throws in
                try OperationDecoding.identifier(raw, at: fields.path("screen"), as: ScreenID.self)
            }
            kind = .presented(
                try identifier("presentation", &fields), style: try named("style", &fields),
                by: try identifier("presentedBy", &fields), stack: stack, screen: screen)
        case "dismissed":
            kind = .dismissed(try identifier("presentation", &fields), by: try identifier("presentedBy", &fields))
        case "cancelled":
            kind = .cancelled(try identifier("presentation", &fields), by: try identifier("presentedBy", &fields))
        case "result":
            kind = .result(
                to: try identifier("screen", &fields), from: try source("from", &fields), value: try resultValue(&fields))
        case "root-set":
            kind = .rootSet(screen: try identifier("screen", &fields), stack: try identifier("stack", &fields))
        case "state-set":
            guard var stateFields = try fields.object("state") else { throw APIError.missingField(pointer: fields.path("state")) }
            kind = .stateSet(
                screen: try identifier("screen", &fields), state: try state(&stateFields),
                transition: try named("transition", &fields))
        default:
            throw APIError.invalidField(pointer: fields.path("type"), reason: "unknown event type \"\(type)\"")
        }
        try fields.finish()
        return Event(revision: revision, time: time, kind: kind)
    }

    private static func outcome(_ fields: inout FieldReader) throws -> PresentationOutcome {
        let outcome = PresentationOutcome(
            id: try identifier("id", &fields), style: try named("style", &fields),
            presentedBy: try identifier("presentedBy", &fields), status: try named("status", &fields),
            result: fields.value("result"))
        try fields.finish()
        return outcome
    }

    /// A result's `value`, required: no operation hands back `null` (a `null` result is none),
    /// so a document without one holds what no session could have.
    private static func resultValue(_ fields: inout FieldReader) throws -> JSONValue {
        guard let value = fields.value("value") else { throw APIError.missingField(pointer: fields.path("value")) }
        return value
    }

    /// Where a result came from: ids this server issues say their kind, `p…` for a presentation.
    private static func source(_ key: String, _ fields: inout FieldReader) throws -> ResultSource {
        let raw = try fields.requiredString(key)
        if raw.hasPrefix("p") {
            return .presentation(try OperationDecoding.identifier(raw, at: fields.path(key), as: PresentationID.self))
        }
        return .screen(try OperationDecoding.identifier(raw, at: fields.path(key), as: ScreenID.self))
    }

    private static func identifier<ID: RawRepresentable<String>>(
        _ key: String, _ fields: inout FieldReader, as type: ID.Type = ID.self
    ) throws -> ID {
        try OperationDecoding.identifier(try fields.requiredString(key), at: fields.path(key), as: type)
    }

    /// A raw-value enum (style, status) by name.
    private static func named<Value: RawRepresentable<String>>(
        _ key: String, _ fields: inout FieldReader, as type: Value.Type = Value.self
    ) throws -> Value {
        let raw = try fields.requiredString(key)
        guard let value = Value(rawValue: raw) else {
            throw APIError.invalidField(pointer: fields.path(key), reason: "\"\(raw)\" is not a valid value")
        }
        return value
    }

    private static func date(_ key: String, _ fields: inout FieldReader) throws -> Date {
        let raw = try fields.requiredString(key)
        guard let date = Timestamp.date(raw) else {
            throw APIError.invalidField(pointer: fields.path(key), reason: "must be an RFC 3339 UTC time")
        }
        return date
    }
}
