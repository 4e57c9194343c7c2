import Foundation
import JSON
import Presentation
import SessionChecks
import Testing

import enum Presentation.Operation

/// The session's own stack type, which the model's `Stack` shadows inside it.
typealias SessionStack = Stack

/// A plain reference model of a session, written from docs/api.md alone: the tree as arrays
/// (a stack, the presentation on it, the stack that holds, ...), every event ever recorded,
/// the outcomes, the id counter. Random operation sequences, valid and not, are applied to both
/// the model and a `Session`, and after every step everything a reader can see is compared.
struct ReferenceModel: Equatable {
    struct Screen: Equatable {
        var id: Int
        var name: String
        var title: String?
        var params: JSONText
        var result: DeliveredResult?
        var state: ScreenState?
    }

    struct Stack: Equatable {
        var id: Int
        var path: [Screen]
    }

    struct Presented: Equatable {
        var id: Int
        var style: PresentationStyle
        var presentedBy: Int
        /// Nil for a presentation that holds a stack.
        var alert: Alert?
        var navigation: Bool
    }

    /// From the root up: `presented[i]` sits on `stacks[i]`; one that is not an alert holds `stacks[i + 1]`.
    var stacks: [Stack]
    var presented: [Presented] = []
    var revision = 1
    var lastID: Int
    /// The kept events, oldest first.
    var events: [Event]
    var droppedThrough = 0
    var outcomes: [PresentationOutcome] = []
    var limits: Limits

    init(root: ScreenSpec, limits: Limits, now: Date) {
        stacks = [Stack(id: 1, path: [Screen(id: 2, name: root.name, title: root.title, params: root.paramsText)])]
        lastID = 2
        events = [Event(revision: 1, time: now, kind: .rootSet(screen: Self.s(2), stack: Self.k(1)))]
        self.limits = limits
    }

    static func s(_ n: Int) -> ScreenID { ScreenID(rawValue: "s\(n)")! }
    static func k(_ n: Int) -> StackID { StackID(rawValue: "k\(n)")! }
    static func p(_ n: Int) -> PresentationID { PresentationID(rawValue: "p\(n)")! }

    var topScreen: Screen { stacks[stacks.count - 1].path.last! }
    var alert: Presented? { presented.last.flatMap { $0.alert != nil ? $0 : nil } }

    var top: Top {
        Top(
            stack: Self.k(stacks.last!.id), screen: Self.s(topScreen.id),
            presentation: stacks.count > 1 ? Self.p(presented[stacks.count - 2].id) : nil,
            alert: alert.map { Self.p($0.id) })
    }

    private mutating func issue() -> Int {
        lastID += 1
        return lastID
    }

    private func refuseIfAlert() throws(PresentationError) {
        if let alert { throw .blockedByAlert(Self.p(alert.id)) }
    }

    /// Where screen `id` is: stack index and path index.
    private func find(_ id: ScreenID) -> (stack: Int, index: Int)? {
        for (stackIndex, stack) in stacks.enumerated() {
            if let index = stack.path.firstIndex(where: { Self.s($0.id) == id }) { return (stackIndex, index) }
        }
        return nil
    }

    private mutating func deliver(_ value: JSONValue, from source: ResultSource, to id: Int, events: inout [EventKind]) {
        let (stack, index) = find(Self.s(id))!
        stacks[stack].path[index].result = DeliveredResult(source: source, value: value, revision: revision + 1)
        events.append(.result(to: Self.s(id), from: source, value: value))
    }

    private mutating func cancel(_ presentation: Presented, events: inout [EventKind]) {
        record(PresentationOutcome(
            id: Self.p(presentation.id), style: presentation.style, presentedBy: Self.s(presentation.presentedBy),
            status: .cancelled))
        events.append(.cancelled(Self.p(presentation.id), by: Self.s(presentation.presentedBy)))
    }

    private mutating func record(_ outcome: PresentationOutcome) {
        outcomes.append(outcome)
        if outcomes.count > limits.outcomesKept { outcomes.removeFirst(outcomes.count - limits.outcomesKept) }
    }

    /// Closes `presented[index...]`, reporting those above `index` cancelled from the top down; returns the one at `index`.
    private mutating func close(from index: Int, events: inout [EventKind]) -> Presented {
        let closed = Array(presented[index...])
        presented.removeSubrange(index...)
        stacks.removeSubrange((index + 1)...)
        for swept in closed.dropFirst().reversed() { cancel(swept, events: &events) }
        return closed[0]
    }

    private func index(of id: PresentationID?) throws(PresentationError) -> Int {
        if let id {
            guard let found = presented.firstIndex(where: { Self.p($0.id) == id }) else { throw .presentationNotFound(id) }
            return found
        }
        guard !presented.isEmpty else { throw .nothingPresented }
        return presented.count - 1
    }

    private func screen(_ spec: ScreenSpec, id: Int) -> Screen {
        Screen(id: id, name: spec.name, title: spec.title, params: spec.paramsText)
    }

    /// One step, on this model; on a throw the caller throws the model away.
    mutating func perform(_ step: Step, events: inout [EventKind], presentedID: inout PresentationID?) throws(PresentationError) {
        if let expected = step.expectedTop, expected != Self.s(topScreen.id) {
            throw .topChanged(expected: expected, actual: Self.s(topScreen.id))
        }
        let top = stacks.count - 1
        switch step.operation {
        case .push(let spec):
            try refuseIfAlert()
            if top > 0, !presented[top - 1].navigation { throw .navigationDisabled(Self.k(stacks[top].id)) }
            guard stacks[top].path.count < limits.maxStackLength else { throw .stackTooLong(limit: limits.maxStackLength) }
            let id = issue()
            stacks[top].path.append(screen(spec, id: id))
            events.append(.pushed(screen: Self.s(id), stack: Self.k(stacks[top].id)))
        case .pop(let result):
            try refuseIfAlert()
            guard stacks[top].path.count > 1 else { throw .cannotPopRoot }
            let popped = stacks[top].path.removeLast()
            events.append(.popped(screens: [Self.s(popped.id)], stack: Self.k(stacks[top].id)))
            if let result { deliver(result, from: .screen(Self.s(popped.id)), to: topScreen.id, events: &events) }
        case .popToRoot:
            try refuseIfAlert()
            guard stacks[top].path.count > 1 else { throw .cannotPopRoot }
            let popped = stacks[top].path[1...].map { Self.s($0.id) }
            stacks[top].path.removeSubrange(1...)
            events.append(.popped(screens: popped, stack: Self.k(stacks[top].id)))
        case .popTo(let id):
            try refuseIfAlert()
            guard let found = find(id) else { throw .screenNotFound(id) }
            let (stack, index) = found
            guard stack == top else { throw .screenNotInTopStack(id) }
            guard index < stacks[top].path.count - 1 else { throw .alreadyOnTop(id) }
            let popped = stacks[top].path[(index + 1)...].map { Self.s($0.id) }
            stacks[top].path.removeSubrange((index + 1)...)
            events.append(.popped(screens: popped, stack: Self.k(stacks[top].id)))
        case .replace(let spec):
            try refuseIfAlert()
            let old = topScreen.id
            let id = issue()
            stacks[top].path[stacks[top].path.count - 1] = screen(spec, id: id)
            events.append(.replaced(old: Self.s(old), new: Self.s(id), stack: Self.k(stacks[top].id)))
        case .present(let request):
            try refuseIfAlert()
            guard presented.count < limits.maxPresentationDepth else {
                throw .presentationsTooDeep(limit: limits.maxPresentationDepth)
            }
            let presenter = topScreen.id
            let id = issue()
            switch request.content {
            case .screen(let spec, let navigation):
                let stackID = issue()
                let screenID = issue()
                presented.append(Presented(id: id, style: request.style, presentedBy: presenter, alert: nil, navigation: navigation))
                stacks.append(Stack(id: stackID, path: [screen(spec, id: screenID)]))
                events.append(.presented(
                    Self.p(id), style: request.style, by: Self.s(presenter), stack: Self.k(stackID), screen: Self.s(screenID)))
            case .alert(let alert):
                presented.append(Presented(id: id, style: request.style, presentedBy: presenter, alert: alert, navigation: false))
                events.append(.presented(Self.p(id), style: request.style, by: Self.s(presenter), stack: nil, screen: nil))
            }
            presentedID = Self.p(id)
        case .dismiss(let id, let result):
            let index = try index(of: id)
            if let result, let alert = presented[index].alert { try Self.check(answer: result, to: alert) }
            let target = close(from: index, events: &events)
            guard let result else {
                cancel(target, events: &events)
                return
            }
            record(PresentationOutcome(
                id: Self.p(target.id), style: target.style, presentedBy: Self.s(target.presentedBy), status: .dismissed,
                result: result))
            events.append(.dismissed(Self.p(target.id), by: Self.s(target.presentedBy)))
            deliver(result, from: .presentation(Self.p(target.id)), to: target.presentedBy, events: &events)
        case .emit(let id, let result):
            try refuseIfAlert()
            let source = presented[try index(of: id)]
            deliver(result, from: .presentation(Self.p(source.id)), to: source.presentedBy, events: &events)
        case .setRoot(let spec):
            if !presented.isEmpty {
                let bottom = close(from: 0, events: &events)
                cancel(bottom, events: &events)
            }
            let stackID = issue()
            let screenID = issue()
            stacks = [Stack(id: stackID, path: [screen(spec, id: screenID)])]
            events.append(.rootSet(screen: Self.s(screenID), stack: Self.k(stackID)))
        case .setState(let id, let state, let transition):
            try refuseIfAlert()
            let target = id ?? Self.s(topScreen.id)
            guard let found = find(target) else { throw .screenNotFound(target) }
            let (stack, index) = found
            stacks[stack].path[index].state = state
            events.append(.stateSet(screen: target, state: state, transition: transition))
        }
    }

    /// docs/api.md, Alerts: `{"action": <action id>, "fields"?: {<field id>: "text"} | null}`; an unknown
    /// action is `unknown_action`, anything else malformed `invalid_alert_result`.
    static func check(answer: JSONValue, to alert: Alert) throws(PresentationError) {
        guard case .object(let members) = answer else { throw .invalidAlertResult("") }
        if members.contains(where: { $0.key != "action" && $0.key != "fields" }) { throw .invalidAlertResult("") }
        guard case .string(let action)? = answer["action"] else { throw .invalidAlertResult("") }
        guard alert.actions.contains(where: { $0.id == action }) else { throw .unknownAlertAction(action) }
        guard let fields = answer["fields"], fields != .null else { return }
        guard case .object(let texts) = fields else { throw .invalidAlertResult("") }
        for text in texts {
            guard alert.fields.contains(where: { $0.id == text.key }), case .string = text.value else {
                throw .invalidAlertResult("")
            }
        }
    }

    /// Applies `steps` as one revision, all or nothing (docs/api.md, batch).
    mutating func apply(_ steps: [Step], at now: Date) throws(PresentationError) -> (events: [Event], presented: PresentationID?) {
        guard !steps.isEmpty else { throw .emptyBatch }
        guard steps.count <= limits.maxBatchSteps else { throw .batchTooLarge(limit: limits.maxBatchSteps) }
        var draft = self
        var kinds: [EventKind] = []
        var presentedID: PresentationID?
        for (index, step) in steps.enumerated() {
            do {
                try draft.perform(step, events: &kinds, presentedID: &presentedID)
            } catch {
                throw steps.count == 1 ? error : .batchStepFailed(index: index, error)
            }
        }
        self = draft
        revision += 1
        let new = kinds.map { Event(revision: revision, time: now, kind: $0) }
        events += new
        // Whole revisions go, oldest first, and the newest is always kept whole.
        while events.count > limits.eventsKept, let oldest = events.first?.revision, oldest != revision {
            events.removeAll { $0.revision == oldest }
            droppedThrough = oldest
        }
        return (new, presentedID)
    }

    /// docs/api.md, Events: the kept events after `after`; 410 when some were dropped.
    func events(after: Int) throws(PresentationError) -> [Event] {
        guard after <= revision else { throw .revisionAhead(current: revision) }
        if droppedThrough > 0, after < droppedThrough { throw .historyExpired(oldest: droppedThrough) }
        return events.filter { $0.revision > after }
    }

    /// docs/api.md, Presentation status.
    func outcome(of id: PresentationID) -> PresentationOutcome? {
        if let open = presented.first(where: { Self.p($0.id) == id }) {
            return PresentationOutcome(id: id, style: open.style, presentedBy: Self.s(open.presentedBy), status: .presented)
        }
        return outcomes.last { $0.id == id }
    }

    /// The last value a presentation emitted, open or closed by a cancel: its presenter's result
    /// while it came from it.
    func lastEmitted(by id: PresentationID) -> DeliveredResult? {
        let presenter: ScreenID
        if let open = presented.first(where: { Self.p($0.id) == id }) {
            presenter = Self.s(open.presentedBy)
        } else if let closed = outcomes.last(where: { $0.id == id }), closed.status == .cancelled {
            presenter = closed.presentedBy
        } else {
            return nil
        }
        guard let found = find(presenter), let result = stacks[found.stack].path[found.index].result,
            result.source == .presentation(id)
        else { return nil }
        return result
    }

    /// What a session's public tree (`root`, nested) says, in the model's shape.
    static func flatten(_ root: SessionStack) -> (stacks: [Stack], presented: [Presented]) {
        var stacks: [Stack] = []
        var presented: [Presented] = []
        var current: SessionStack? = root
        while let stack = current {
            stacks.append(Stack(id: number(stack.id.rawValue), path: stack.path.map {
                Screen(
                    id: number($0.id.rawValue), name: $0.name, title: $0.title, params: $0.paramsText, result: $0.result,
                    state: $0.state)
            }))
            current = nil
            guard let presentation = stack.presentation else { break }
            switch presentation.content {
            case .stack(let held, let navigation):
                presented.append(Presented(
                    id: number(presentation.id.rawValue), style: presentation.style,
                    presentedBy: number(presentation.presentedBy.rawValue), alert: nil, navigation: navigation))
                current = held
            case .alert(let alert):
                presented.append(Presented(
                    id: number(presentation.id.rawValue), style: presentation.style,
                    presentedBy: number(presentation.presentedBy.rawValue), alert: alert, navigation: false))
            }
        }
        return (stacks, presented)
    }

    private static func number(_ raw: String) -> Int { Int(raw.dropFirst())! }
}
