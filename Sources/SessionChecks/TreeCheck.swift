public import Presentation

/// The invariants every session keeps, checked by walking its tree from the root stack up.
///
/// Shared by the domain's tests (`expectValidTree`) and the operation-sequence fuzz target, so
/// both hold the tree to the same promises: every stack has a screen; a presentation sits on its
/// presenter, the last screen of its stack; an alert holds no stack; a stack presented without
/// navigation keeps its one screen; ids are unique in the session; `top` is the last screen of
/// the topmost stack, with what holds and covers it; and, given limits, no stack is longer and
/// no chain of presentations deeper than they allow.
public struct TreeCheck {
    /// Every id in the tree: stacks, screens and presentations.
    public private(set) var ids: Set<String> = []
    /// What is wrong, in the order found; empty for a valid tree.
    public private(set) var violations: [Violation] = []

    public init(_ session: Session, limits: Limits? = nil) {
        var all: [String] = []
        var stack: Stack? = session.root
        var holder: PresentationID?
        var topmost = session.root
        var alert: PresentationID?
        var depth = 0
        while let current = stack {
            stack = nil
            all.append(current.id.rawValue)
            all.append(contentsOf: current.path.map(\.id.rawValue))
            topmost = current
            guard !current.path.isEmpty else {
                violations.append(Violation("stack \(current.id) is empty"))
                break
            }
            if let limits, current.path.count > limits.maxStackLength {
                violations.append(Violation("stack \(current.id) holds \(current.path.count) screens, past the limit"))
            }
            guard let presentation = current.presentation else { break }
            depth += 1
            all.append(presentation.id.rawValue)
            if presentation.presentedBy != current.path.last?.id {
                violations.append(Violation("presentation \(presentation.id) is not over its presenter"))
            }
            switch presentation.content {
            case .stack(let next, let navigation):
                if presentation.style == .alert {
                    violations.append(Violation("alert \(presentation.id) holds a stack"))
                }
                if !navigation, next.path.count != 1 {
                    violations.append(Violation("stack \(next.id) was presented without navigation but grew"))
                }
                holder = presentation.id
                stack = next
            case .alert:
                if presentation.style != .alert {
                    violations.append(Violation("\(presentation.style) \(presentation.id) holds an alert"))
                }
                alert = presentation.id
            }
        }
        if let limits, depth > limits.maxPresentationDepth {
            violations.append(Violation("\(depth) presentations are stacked, past the limit"))
        }
        ids = Set(all)
        if ids.count != all.count {
            violations.append(Violation("ids repeat: \(all)"))
        }
        if let last = topmost.path.last {
            let expected = Top(stack: topmost.id, screen: last.id, presentation: holder, alert: alert)
            if session.top != expected {
                violations.append(Violation("top is \(session.top), the tree says \(expected)"))
            }
        }
    }
}
