/// A session's tree taken apart for editing.
///
/// Each stack holds at most one presentation, so the tree is a chain: the root stack, the
/// presentation on it, that presentation's stack, and so on, ending with a stack or an alert.
/// Keeping it flat turns "the topmost stack" into the last element and "dismiss this one and all
/// above it" into truncating two arrays; `root` builds the nested value readers see.
struct Chain: Hashable, Sendable {
    /// A presentation without its stack: the chain keeps that stack in `stacks`.
    struct Link: Hashable, Sendable {
        /// A presented stack and whether it may navigate, or an alert.
        enum Body: Hashable, Sendable {
            case stack(navigation: Bool)
            case alert(Alert)
        }

        let id: PresentationID
        let style: PresentationStyle
        let presentedBy: ScreenID
        // The body is kept apart, the alert in a `Box`: inline, an alert's fields made every
        // link 56 bytes larger (about 64 bytes a session with a sheet open), alerts being
        // the rare kind. Not an `indirect` case, nor a class inside an enum case: with
        // either, LeakSanitizer found the box of every presented alert leaked (Swift 6.3.1,
        // debug build); an optional reference, as `Screen` keeps its result, does not.
        private let stackNavigates: Bool
        private let alertBox: Box<Alert>?

        init(id: PresentationID, style: PresentationStyle, presentedBy: ScreenID, body: Body) {
            self.id = id
            self.style = style
            self.presentedBy = presentedBy
            switch body {
            case .stack(let navigation):
                self.stackNavigates = navigation
                self.alertBox = nil
            case .alert(let alert):
                self.stackNavigates = false
                self.alertBox = Box(alert)
            }
        }

        var body: Body {
            if let alertBox { .alert(alertBox.value) } else { .stack(navigation: stackNavigates) }
        }

        /// Whether `body` is an alert, without copying the alert out of its box.
        var isAlert: Bool { alertBox != nil }
    }

    /// A stack of the chain: its id and path. Not a `Stack`, whose room for the presentation on
    /// it (always nil here: `links` holds that) made each 72 bytes rather than 24, some 96
    /// bytes a session with a sheet open (a `Stack` is built where a reader asks for one).
    struct Level: Hashable, Sendable {
        let id: StackID
        /// Never empty, as a `Stack`'s.
        var path: [Screen]

        init(_ stack: Stack) {
            precondition(stack.presentation == nil, "the chain keeps a stack's presentation in its links")
            self.id = stack.id
            self.path = stack.path
        }

        var top: Screen { path[path.count - 1] }

        /// The public value, with `presentation` on it.
        func stack(presenting presentation: Presentation?) -> Stack {
            Stack(id: id, path: path, presentation: presentation)
        }
    }

    /// From the root up: `links` says what sits on each.
    private(set) var stacks: [Level]
    /// `links[i]` is presented on `stacks[i]`; a non-alert link holds `stacks[i + 1]`;
    /// only the last link may be an alert.
    private(set) var links: [Link] = []

    /// A chain of one stack and no presentations.
    init(root: Stack) {
        self.stacks = [Level(root)]
    }

    private var topIndex: Int { stacks.count - 1 }

    // The topmost stack is the one operations act on: the last one, since an alert holds no
    // stack. What a change needs of it is asked for apart, never as a copy of the stack: a
    // copy held while the change edits the stack shares its path, which the edit then copies.

    /// The topmost stack's id.
    var topmostID: StackID { stacks[topIndex].id }

    /// How many screens the topmost stack's path holds.
    var topmostDepth: Int { stacks[topIndex].path.count }

    /// Where `id` is in the topmost stack's path, if there.
    func topmostIndex(of id: ScreenID) -> Int? {
        stacks[topIndex].path.firstIndex { $0.id == id }
    }

    /// The presentation holding the topmost stack, nil when that is the root stack.
    var holder: Link? { topIndex > 0 ? links[topIndex - 1] : nil }

    /// An alert presented over the top screen.
    var alert: Link? {
        guard let last = links.last, last.isAlert else { return nil }
        return last
    }

    /// Where operations act. About 360 instructions a call (callgrind): what needs only the
    /// top screen asks `topScreen`.
    var top: Top {
        let alert = links.last.flatMap { $0.isAlert ? $0.id : nil }
        return Top(
            stack: stacks[topIndex].id, screen: topScreen, presentation: topIndex > 0 ? links[topIndex - 1].id : nil,
            alert: alert)
    }

    /// The last screen's id of the topmost stack: `top.screen`, without the rest of `top`
    /// (a step's expected-top check and a result's delivery, on every change).
    var topScreen: ScreenID {
        let path = stacks[topIndex].path
        return path[path.count - 1].id
    }

    /// The topmost stack's last screen, read off that stack alone: what a push put there.
    var topmostScreen: Screen { stacks[topIndex].top }

    /// The last link as readers see it: with the topmost stack inside unless it is an alert.
    var topmostPresentation: Presentation? {
        guard let last = links.last else { return nil }
        return last.presentation(holding: last.isAlert ? nil : stacks[topIndex].stack(presenting: nil))
    }

    func screen(_ id: ScreenID) -> Screen? {
        for stack in stacks {
            if let screen = stack.path.first(where: { $0.id == id }) { return screen }
        }
        return nil
    }

    /// The tree as readers see it, nested from the root stack.
    var root: Stack {
        var stack = stacks[topIndex].stack(presenting: alert?.presentation(holding: nil))
        for index in stride(from: topIndex - 1, through: 0, by: -1) {
            stack = stacks[index].stack(presenting: links[index].presentation(holding: stack))
        }
        return stack
    }

    mutating func pushOntoTopmost(_ screen: Screen) {
        stacks[topIndex].path.appendTightly(screen)
    }

    /// Keeps the first `count` screens of the topmost stack and returns the ids of the others, bottom first.
    mutating func truncateTopmost(to count: Int) -> [ScreenID] {
        let removed = stacks[topIndex].path[count...].map(\.id)
        stacks[topIndex].path.removeSubrange(count...)
        return removed
    }

    mutating func replaceTopmostTop(with screen: Screen) {
        stacks[topIndex].path[stacks[topIndex].path.count - 1] = screen
    }

    /// Puts `link` over the top screen; `stack` is the stack it holds, nil for an alert.
    mutating func present(_ link: Link, holding stack: Stack?) {
        links.appendTightly(link)
        if let stack {
            stacks.appendTightly(Level(stack))
        }
    }

    /// Closes `links[index]` and everything above it; returns the closed links, bottom (`links[index]`) first.
    mutating func close(from index: Int) -> [Link] {
        let closed = Array(links[index...])
        links.removeSubrange(index...)
        stacks.removeSubrange((index + 1)...)
        return closed
    }

    /// Hands `result` to the screen `id`, which the caller knows is in the tree.
    mutating func deliver(_ result: DeliveredResult, to id: ScreenID) {
        guard update(id, { $0.result = result }) else {
            preconditionFailure("a result was sent to \(id), which is not in the tree")
        }
    }

    /// Changes screen `id` in place, wherever it is; false when it is not in the tree.
    mutating func update(_ id: ScreenID, _ change: (inout Screen) -> Void) -> Bool {
        for stackIndex in stacks.indices {
            if let screenIndex = stacks[stackIndex].path.firstIndex(where: { $0.id == id }) {
                change(&stacks[stackIndex].path[screenIndex])
                return true
            }
        }
        return false
    }
}

extension Chain.Link {
    /// The public value, holding `stack` (the chain's next stack) unless this is an alert.
    func presentation(holding stack: Stack?) -> Presentation {
        let content: PresentationContent
        switch body {
        case .alert(let alert):
            content = .alert(alert)
        case .stack(let navigation):
            guard let stack else { preconditionFailure("the chain lost the stack of presentation \(id)") }
            content = .stack(stack, navigation: navigation)
        }
        return Presentation(id: id, style: style, presentedBy: presentedBy, content: content)
    }

    var navigation: Bool {
        if case .stack(navigation: false) = body { return false }
        return true
    }
}
