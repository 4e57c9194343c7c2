import JSON

extension Session {
    mutating func push(_ spec: ScreenSpec, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        // Its id and depth, never a copy of the stack (see `Chain.topmostID`).
        let stackID = chain.topmostID
        if let holder = chain.holder, !holder.navigation { throw .navigationDisabled(stackID) }
        let limit = change.limits.maxStackLength
        guard chain.topmostDepth < limit else { throw .stackTooLong(limit: limit) }
        let screen = Screen(id: ids.screenID(), spec: spec)
        chain.pushOntoTopmost(screen)
        change.record(.pushed(screen: screen.id, stack: stackID))
    }

    /// Pops the top screen; a result goes to the screen uncovered.
    mutating func pop(result: JSONValue?, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stackID = chain.topmostID, depth = chain.topmostDepth
        guard depth > 1 else { throw .cannotPopRoot }
        let popped = chain.truncateTopmost(to: depth - 1)
        change.record(.popped(screens: popped, stack: stackID))
        if let result {
            deliver(result, from: .screen(popped[popped.count - 1]), to: chain.topScreen, into: &change)
        }
    }

    mutating func popToRoot(into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stackID = chain.topmostID
        guard chain.topmostDepth > 1 else { throw .cannotPopRoot }
        change.record(.popped(screens: chain.truncateTopmost(to: 1), stack: stackID))
    }

    /// Pops the screens above `id`, which must be in the topmost stack.
    mutating func pop(to id: ScreenID, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stackID = chain.topmostID
        guard let index = chain.topmostIndex(of: id) else {
            throw chain.screen(id) == nil ? .screenNotFound(id) : .screenNotInTopStack(id)
        }
        guard index < chain.topmostDepth - 1 else { throw .alreadyOnTop(id) }
        change.record(.popped(screens: chain.truncateTopmost(to: index + 1), stack: stackID))
    }

    /// Swaps the top screen for a new one (with a new id, so a client never confuses the two).
    mutating func replace(with spec: ScreenSpec, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let stackID = chain.topmostID, old = chain.topScreen
        let screen = Screen(id: ids.screenID(), spec: spec)
        chain.replaceTopmostTop(with: screen)
        change.record(.replaced(old: old, new: screen.id, stack: stackID))
    }
}
