import JSON

extension Session {
    mutating func push(_ spec: ScreenSpec, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stack = chain.topmost
        if let holder = chain.holder, !holder.navigation { throw .navigationDisabled(stack.id) }
        let limit = change.limits.maxStackLength
        guard stack.path.count < limit else { throw .stackTooLong(limit: limit) }
        let screen = Screen(id: ids.screenID(), spec: spec)
        chain.pushOntoTopmost(screen)
        change.record(.pushed(screen: screen.id, stack: stack.id))
    }

    /// Pops the top screen; a result goes to the screen uncovered.
    mutating func pop(result: JSONValue?, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stack = chain.topmost
        guard stack.path.count > 1 else { throw .cannotPopRoot }
        let popped = chain.truncateTopmost(to: stack.path.count - 1)
        change.record(.popped(screens: popped, stack: stack.id))
        if let result {
            deliver(result, from: .screen(stack.top.id), to: chain.topScreen, into: &change)
        }
    }

    mutating func popToRoot(into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stack = chain.topmost
        guard stack.path.count > 1 else { throw .cannotPopRoot }
        change.record(.popped(screens: chain.truncateTopmost(to: 1), stack: stack.id))
    }

    /// Pops the screens above `id`, which must be in the topmost stack.
    mutating func pop(to id: ScreenID, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stack = chain.topmost
        guard let index = stack.path.firstIndex(where: { $0.id == id }) else {
            throw chain.screen(id) == nil ? .screenNotFound(id) : .screenNotInTopStack(id)
        }
        guard index < stack.path.count - 1 else { throw .alreadyOnTop(id) }
        change.record(.popped(screens: chain.truncateTopmost(to: index + 1), stack: stack.id))
    }

    /// Swaps the top screen for a new one (with a new id, so a client never confuses the two).
    mutating func replace(with spec: ScreenSpec, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stack = chain.topmost
        let screen = Screen(id: ids.screenID(), spec: spec)
        chain.replaceTopmostTop(with: screen)
        change.record(.replaced(old: stack.top.id, new: screen.id, stack: stack.id))
    }
}
