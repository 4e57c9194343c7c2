extension Session {
    /// Shows `state` on screen `id` (the top screen when nil), wherever it is in the tree: a
    /// covered screen may change what it shows (its content loaded) while a sheet is over it.
    /// Refused while an alert is open, as every change but answering it is.
    mutating func setState(
        _ state: ScreenState, of id: ScreenID?, transition: StateTransition, into change: inout PendingChange
    ) throws(PresentationError) {
        try refuseIfAlert()
        let target = id ?? chain.topScreen
        guard chain.update(target, { $0.state = state }) else { throw .screenNotFound(target) }
        change.record(.stateSet(screen: target, state: state, transition: transition))
    }
}
