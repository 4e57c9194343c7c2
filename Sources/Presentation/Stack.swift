/// A navigation stack: a path of screens, and at most one presentation on top of it.
public struct Stack: Hashable, Sendable {
    public let id: StackID
    /// Never empty: the first screen is the stack's root, the last its top.
    public internal(set) var path: [Screen]
    public internal(set) var presentation: Presentation?

    init(id: StackID, root: Screen) {
        self.id = id
        self.path = [root]
        self.presentation = nil
    }

    init(id: StackID, path: [Screen], presentation: Presentation?) {
        self.id = id
        self.path = path
        self.presentation = presentation
    }

    /// The last screen of the path.
    public var top: Screen {
        // The path is never empty: every operation that removes screens keeps the first.
        path[path.count - 1]
    }
}
