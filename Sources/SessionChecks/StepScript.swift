import JSON
public import Presentation

public import enum Presentation.Operation

/// Decodes bytes into batches of domain steps for the operation-sequence fuzz target.
///
/// Each batch is decided against the session as it is before the batch: ids are mostly ones the
/// tree holds, sometimes ones it held once or never issued; values include alert answers right
/// and wrong, deep nesting and odd strings; batches are sometimes empty or longer than the limit.
/// Every screen spec and presentation request made here is valid: invalid ones are the request
/// fuzz target's business, and the domain cannot even be handed them.
public struct StepScript {
    private var cursor: ByteCursor

    public init(_ bytes: [UInt8]) {
        cursor = ByteCursor(bytes)
    }

    public var isAtEnd: Bool { cursor.isAtEnd }

    /// The next batch (possibly empty, possibly too long for the limits).
    public mutating func nextBatch(for session: Session) -> [Step] {
        let ids = SessionIDs(session)
        let lastIssued = session.snapshot.lastIssuedID
        let header = Int(cursor.byte())
        let count = header == 0xFF ? 0 : (header % 8 < 5 ? 1 : header % 8 - 3)
        return (0..<count).map { _ in step(ids: ids, lastIssued: lastIssued, top: session.top.screen) }
    }

    private mutating func step(ids: SessionIDs, lastIssued: Int, top: ScreenID) -> Step {
        let operation: Operation
        // The kind is the byte's low three bits; its upper bits pick among kinds added later
        // (emit, set-state), so a step takes as many bytes as before they were and the
        // checked-in inputs still split into the same steps.
        let kind = Int(cursor.byte())
        switch kind % 8 {
        case 0: operation = .push(spec())
        case 1: operation = .pop(result: value(depth: 0))
        case 2: operation = .popToRoot
        case 3: operation = .popTo(screen(ids, lastIssued: lastIssued))
        case 4: operation = .replace(spec())
        case 5: operation = .present(presentation())
        case 6:
            // One byte picks the id and, in its upper part, a dismiss or (one time in four) an emit,
            // so a step takes as many bytes as before emits were added and the checked-in inputs
            // still split into the same steps.
            let choice = Int(cursor.byte())
            let id: PresentationID? =
                switch choice % 3 {
                case 0: nil
                case 1 where !ids.presentations.isEmpty: cursor.pick(ids.presentations)
                default: PresentationID(rawValue: "p\(cursor.below(lastIssued + 3) + 1)")
                }
            let result = value(depth: 0)
            if choice / 3 % 4 == 3, let result {
                operation = .emit(presentation: id, result: result)
            } else {
                operation = .dismiss(presentation: id, result: result)
            }
        default:
            let spec = spec()
            if kind / 8 % 4 == 3 {
                operation = .setState(
                    screen: stateTarget(kind / 32, ids, lastIssued: lastIssued),
                    // A spec's name and params are a valid state's: the same bytes either way.
                    state: try! ScreenState(name: spec.name, paramsText: spec.paramsText),
                    transition: StateTransition.allCases[kind / 32 % StateTransition.allCases.count])
            } else {
                operation = .setRoot(spec)
            }
        }
        let expectedTop: ScreenID? =
            switch cursor.below(6) {
            case 0: top
            case 1: screen(ids, lastIssued: lastIssued)
            default: nil
            }
        return Step(operation: operation, expectedTop: expectedTop)
    }

    /// The screen a set-state names, from bits of a byte already read (0-7): the top screen
    /// (nil), one the tree holds (covered ones included), or one it does not hold.
    private func stateTarget(_ bits: Int, _ ids: SessionIDs, lastIssued: Int) -> ScreenID? {
        switch bits {
        case 0..<3: nil
        case 3..<6 where !ids.screens.isEmpty: ids.screens[bits % ids.screens.count]
        default: ScreenID(rawValue: "s\(lastIssued + bits)")
        }
    }

    private mutating func screen(_ ids: SessionIDs, lastIssued: Int) -> ScreenID {
        if cursor.chance(2), !ids.screens.isEmpty { return cursor.pick(ids.screens) }
        // An id with the shape the session issues: open, closed, or never issued.
        return ScreenID(rawValue: "s\(cursor.below(lastIssued + 3) + 1)")!
    }

    private mutating func spec() -> ScreenSpec {
        let names = ["home", "list", "detail", "compose", "é", String(repeating: "n", count: ScreenSpec.maxNameBytes)]
        let name = cursor.pick(names)
        let title: String? = cursor.chance(3) ? "Title \(cursor.byte())" : nil
        var params = JSONValue.emptyObject
        if cursor.chance(3), let inner = value(depth: 0) { params = .object([JSONMember("p", inner)]) }
        // Every name and title above is valid, so this never falls back; the fallback keeps it total.
        return (try? ScreenSpec(name: name, title: title, params: params)) ?? (try! ScreenSpec(name: "home"))
    }

    private mutating func presentation() -> PresentationRequest {
        let style = cursor.pick(PresentationStyle.allCases)
        if style == .alert {
            var actions = [AlertAction(id: "ok", title: "OK")]
            if cursor.chance(2) { actions.append(AlertAction(id: "cancel", title: "Cancel", role: .cancel)) }
            let fields = cursor.chance(2) ? [AlertField(id: "reason", placeholder: "Why?")] : []
            let alert = try! Alert(title: "Sure?", actions: actions, fields: fields)
            return try! PresentationRequest(style: .alert, content: .alert(alert))
        }
        return try! PresentationRequest(style: style, content: .screen(spec(), navigation: !cursor.chance(3)))
    }

    /// A result or a param: nil (none), scalars, odd strings, nesting, and alert answers right and wrong.
    private mutating func value(depth: Int) -> JSONValue? {
        let choice = cursor.below(16)
        switch choice {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(cursor.chance(2))
        case 3: return .number("\(cursor.byte())")
        case 4: return .number("-1.5e300")
        case 5: return .string("x")
        case 6: return .string("é\u{0}\u{FFFF}\"\\")
        case 7, 8:
            guard depth < 4 else { return .array([]) }
            let count = cursor.below(3)
            let items = (0..<count).compactMap { _ in value(depth: depth + 1) }
            return choice == 7 ? .array(items) : .object(items.enumerated().map { JSONMember("k\($0.offset)", $0.element) })
        case 9:
            var deep = JSONValue.array([])
            for _ in 0..<cursor.below(64) { deep = .array([deep]) }
            return deep
        case 10: return answer([("action", .string("ok"))])
        case 11: return answer([("action", .string("cancel")), ("fields", answer([("reason", .string("r"))]))])
        case 12: return answer([("action", .string("nope"))])
        case 13: return answer([("action", .string("ok")), ("fields", answer([("nope", .string("x"))]))])
        case 14: return answer([("action", .string("ok")), ("extra", .number("1"))])
        default: return answer([("action", .number("1"))])
        }
    }

    private func answer(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember($0.0, $0.1) })
    }
}
