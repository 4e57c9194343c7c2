import JSON
import Presentation

/// Turns request bodies into domain steps, refusing wrong shapes with the exact pointer.
enum OperationDecoding {
    /// One operation from its fields (a route's body, or one element of a batch).
    static func step(_ kind: OperationKind, from fields: inout FieldReader) throws -> Step {
        let expectedTop = try fields.string("from").map { raw throws(APIError) in
            try identifier(raw, at: fields.path("from"), as: ScreenID.self)
        }
        let operation: Operation
        switch kind {
        case .push: operation = .push(try screen(from: &fields))
        case .pop: operation = .pop(result: fields.value("result"))
        case .popToRoot: operation = .popToRoot
        case .popTo:
            operation = .popTo(
                try identifier(try fields.requiredString("screen"), at: fields.path("screen"), as: ScreenID.self))
        case .replace: operation = .replace(try screen(from: &fields))
        case .present: operation = .present(try presentation(from: &fields))
        case .dismiss:
            operation = .dismiss(presentation: try presentationID(from: &fields), result: fields.value("result"))
        case .emit:
            let presentation = try presentationID(from: &fields)
            // JSON null reads as absent, as everywhere: a stream's value is never null.
            guard let result = fields.value("result") else { throw APIError.missingField(pointer: fields.path("result")) }
            operation = .emit(presentation: presentation, result: result)
        case .setRoot: operation = .setRoot(try screen(from: &fields))
        case .setState: operation = try stateChange(from: &fields)
        }
        try fields.finish()
        return Step(operation: operation, expectedTop: expectedTop)
    }

    /// A creation's body: `{"root": <screen request>, "ttl"?: seconds}`, the root screen and
    /// the lifetime asked for.
    static func creation(from fields: inout FieldReader) throws -> (root: ScreenSpec, timeToLive: Int?) {
        guard var rootFields = try fields.object("root") else { throw APIError.missingField(pointer: "/root") }
        let root = try screen(from: &rootFields)
        try rootFields.finish()
        let timeToLive = try fields.integer("ttl", in: timeToLiveRange)
        try fields.finish()
        return (root, timeToLive)
    }

    /// The seconds a creator may ask a session to live; the server's own limit caps them later.
    static let timeToLiveRange = 1...Int(Int32.max)

    /// `{"operations": [{"op": "push", ...}, ...]}`.
    static func batch(from fields: inout FieldReader, limit: Int) throws -> [Step] {
        guard let operations = try fields.array("operations") else { throw APIError.missingField(pointer: "/operations") }
        try fields.finish()
        guard !operations.isEmpty else { throw PresentationError.emptyBatch }
        guard operations.count <= limit else { throw PresentationError.batchTooLarge(limit: limit) }
        return try operations.enumerated().map { index, value in
            do {
                var element = try FieldReader(value, at: "/operations/\(index)")
                let name = try element.requiredString("op")
                guard let kind = OperationKind(rawValue: name) else {
                    throw APIError.invalidField(
                        pointer: element.path("op"),
                        reason: "unknown operation \"\(name)\"; one of \(OperationKind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return try step(kind, from: &element)
            } catch let error as PresentationError {
                throw PresentationError.batchStepFailed(index: index, error)
            } catch let error as APIError {
                throw APIError.batchOperation(index: index, error)
            }
        }
    }

    /// `"presentation"?: id`: the presentation a dismiss or an emit names, nil for the topmost.
    private static func presentationID(from fields: inout FieldReader) throws -> PresentationID? {
        try fields.string("presentation").map { raw throws(APIError) in
            try identifier(raw, at: fields.path("presentation"), as: PresentationID.self)
        }
    }

    /// `{"screen": name, "params"?: {...}, "title"?: string}`.
    static func screen(from fields: inout FieldReader) throws -> ScreenSpec {
        let name = try fields.requiredString("screen")
        let title = try fields.string("title")
        let params = fields.value("params") ?? .emptyObject
        guard params.isObject else { throw APIError.invalidField(pointer: fields.path("params"), reason: "must be a JSON object") }
        return try ScreenSpec(name: name, title: title, params: params)
    }

    /// `{"state": name, "params"?: {...}, "screen"?: id, "transition"?: name}`.
    private static func stateChange(from fields: inout FieldReader) throws -> Operation {
        let state = try screenState(named: "state", from: &fields)
        let screen = try fields.string("screen").map { raw throws(APIError) in
            try identifier(raw, at: fields.path("screen"), as: ScreenID.self)
        }
        let transition = try named("transition", from: &fields, as: StateTransition.self) ?? .automatic
        return .setState(screen: screen, state: state, transition: transition)
    }

    /// A state's name (under `key`) and its `"params"?: {...}`: a set-state request's, or a
    /// screen's `state` in an exported document.
    static func screenState(named key: String, from fields: inout FieldReader) throws -> ScreenState {
        let name = try fields.requiredString(key)
        let params = fields.value("params") ?? .emptyObject
        guard params.isObject else { throw APIError.invalidField(pointer: fields.path("params"), reason: "must be a JSON object") }
        return try ScreenState(name: name, params: params)
    }

    private static func presentation(from fields: inout FieldReader) throws -> PresentationRequest {
        guard let style = try named("style", from: &fields, as: PresentationStyle.self) else {
            throw APIError.missingField(pointer: fields.path("style"))
        }
        if style == .alert {
            guard var alertFields = try fields.object("alert") else { throw APIError.missingField(pointer: fields.path("alert")) }
            return try PresentationRequest(style: style, content: .alert(try alert(from: &alertFields)))
        }
        let navigation = try fields.bool("navigation") ?? true
        return try PresentationRequest(style: style, content: .screen(try screen(from: &fields), navigation: navigation))
    }

    static func alert(from fields: inout FieldReader) throws -> Alert {
        let title = try fields.string("title")
        let message = try fields.string("message")
        let actions = try (fields.array("actions") ?? []).enumerated().map { index, value in
            var action = try FieldReader(value, at: fields.path("actions") + "/\(index)")
            let roleName = try action.string("role") ?? AlertActionRole.default.rawValue
            guard let role = AlertActionRole(rawValue: roleName) else {
                throw APIError.invalidField(pointer: action.path("role"), reason: "one of default, cancel, destructive")
            }
            let made = AlertAction(id: try action.requiredString("id"), title: try action.requiredString("title"), role: role)
            try action.finish()
            return made
        }
        let textFields = try (fields.array("fields") ?? []).enumerated().map { index, value in
            var field = try FieldReader(value, at: fields.path("fields") + "/\(index)")
            let made = AlertField(
                id: try field.requiredString("id"), placeholder: try field.string("placeholder"),
                secure: try field.bool("secure") ?? false)
            try field.finish()
            return made
        }
        try fields.finish()
        return try Alert(title: title, message: message, actions: actions, fields: textFields)
    }

    /// One of an enum's names under `key`, nil when absent; another name is refused with the
    /// ones it could be.
    private static func named<Value: RawRepresentable<String> & CaseIterable>(
        _ key: String, from fields: inout FieldReader, as type: Value.Type
    ) throws -> Value? {
        guard let name = try fields.string(key) else { return nil }
        guard let value = Value(rawValue: name) else {
            throw APIError.invalidField(
                pointer: fields.path(key),
                reason: "unknown \(key) \"\(name)\"; one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    static func identifier<ID: RawRepresentable<String>>(_ raw: String, at pointer: String, as type: ID.Type)
        throws(APIError) -> ID
    {
        guard let id = ID(rawValue: raw) else { throw .invalidField(pointer: pointer, reason: "not a valid id") }
        return id
    }
}
