import Foundation
import JSON
import Presentation
import SessionChecks
import Testing

import enum Presentation.Operation

/// Random operations over what a model holds, valid and not.
struct ReferenceOperations {
    var random: SplitMix64

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    mutating func value(depth: Int = 0) -> JSONValue {
        switch int(0..<(depth > 1 ? 5 : 7)) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .number(["0", "-1", "1.50", "2e3", "12345678901234567890", "-0.0"][int(0..<6)])
        case 3: return .string(["", "a", "é\u{2028}\"\\/", "tab\there"][int(0..<4)])
        case 4: return .string("v\(int(0..<100))")
        case 5: return .array((0..<int(0..<3)).map { _ in value(depth: depth + 1) })
        default: return object(depth: depth + 1)
        }
    }

    mutating func object(depth: Int = 0) -> JSONValue {
        var members: [JSONMember] = []
        for index in 0..<int(0..<3) { members.append(JSONMember("k\(index)", value(depth: depth + 1))) }
        return .object(members)
    }

    mutating func spec() -> ScreenSpec {
        try! ScreenSpec(
            name: ["inbox", "detail", "compose", "settings"][int(0..<4)], title: chance(30) ? "Title \(int(0..<9))" : nil,
            params: chance(50) ? .emptyObject : object())
    }

    mutating func someScreen(_ model: ReferenceModel) -> ScreenID {
        if chance(70) {
            let stack = model.stacks[chance(60) ? model.stacks.count - 1 : int(0..<model.stacks.count)]
            return ReferenceModel.s(stack.path[int(0..<stack.path.count)].id)
        }
        return ReferenceModel.s(int(1..<(model.lastID + 3)))
    }

    mutating func somePresentation(_ model: ReferenceModel) -> PresentationID? {
        if chance(25) { return nil }
        if !model.presented.isEmpty, chance(70) { return ReferenceModel.p(model.presented[int(0..<model.presented.count)].id) }
        return ReferenceModel.p(int(1..<(model.lastID + 3)))
    }

    mutating func answer(_ model: ReferenceModel) -> JSONValue? {
        guard let alert = model.alert?.alert, chance(70) else { return chance(50) ? nil : value() }
        switch int(0..<8) {
        case 0: return .string("ok")
        case 1: return .object([JSONMember("action", .string("nope"))])
        case 2: return .object([JSONMember("action", .string(alert.actions[0].id)), JSONMember("extra", .null)])
        case 3: return .object([JSONMember("action", .string(alert.actions[0].id)), JSONMember("fields", .object([JSONMember("reason", .number("1"))]))])
        case 4: return .object([JSONMember("action", .string(alert.actions[0].id)), JSONMember("fields", .object([JSONMember("other", .string("x"))]))])
        default:
            var members = [JSONMember("action", .string(alert.actions[int(0..<alert.actions.count)].id))]
            if chance(50) { members.append(JSONMember("fields", .object([JSONMember("reason", .string("because"))]))) }
            return .object(members)
        }
    }

    mutating func operation(_ model: ReferenceModel) -> Operation {
        // An open alert blocks nearly everything: answer it more often than not.
        if model.alert != nil, chance(60) {
            return .dismiss(presentation: chance(70) ? nil : somePresentation(model), result: answer(model))
        }
        switch int(0..<100) {
        case 0..<22: return .push(spec())
        case 22..<32: return .pop(result: chance(50) ? nil : value())
        case 32..<35: return .popToRoot
        case 35..<40: return .popTo(someScreen(model))
        case 40..<44: return .replace(spec())
        case 44..<54:
            let style = [PresentationStyle.modal, .sheet, .fullScreen, .popover][int(0..<4)]
            return .present(try! PresentationRequest(style: style, content: .screen(spec(), navigation: chance(75))))
        case 54..<59:
            let actions = [AlertAction(id: "ok", title: "OK"), AlertAction(id: "no", title: "No", role: .cancel)]
            let alert = try! Alert(
                title: chance(50) ? "Sure?" : nil, actions: Array(actions.prefix(int(1..<3))),
                fields: chance(50) ? [AlertField(id: "reason", placeholder: "Why?")] : [])
            return .present(try! PresentationRequest(style: .alert, content: .alert(alert)))
        case 59..<72: return .dismiss(presentation: somePresentation(model), result: answer(model))
        case 72..<79: return .emit(presentation: somePresentation(model), result: value())
        case 79..<82: return .setRoot(spec())
        default:
            let state = try! ScreenState(name: ["loading", "content", "failed"][int(0..<3)], params: chance(50) ? .emptyObject : object())
            let transition = [StateTransition.automatic, .crossfade, .none][int(0..<3)]
            return .setState(screen: chance(40) ? nil : someScreen(model), state: state, transition: transition)
        }
    }

    mutating func steps(_ model: ReferenceModel) -> [Step] {
        let count = chance(80) ? 1 : chance(5) ? 0 : chance(10) ? model.limits.maxBatchSteps + 1 : int(2..<(model.limits.maxBatchSteps + 1))
        var steps: [Step] = []
        // Each step is drawn on the model as the steps before it left it, so that batches mostly fit.
        var draft = model
        for _ in 0..<count {
            let from: ScreenID? = chance(85) ? nil : chance(70) ? ReferenceModel.s(draft.topScreen.id) : someScreen(draft)
            let step = Step(operation: operation(draft), expectedTop: from)
            steps.append(step)
            _ = try? draft.apply([step], at: Date(timeIntervalSince1970: 0))
        }
        return steps
    }
}
