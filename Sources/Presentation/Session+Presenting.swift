import JSON

extension Session {
    /// Presents over the top screen; the new id is reported in the change.
    mutating func present(_ request: PresentationRequest, into change: inout PendingChange) throws(PresentationError) {
        try refuseIfAlert()
        let limit = change.limits.maxPresentationDepth
        guard chain.links.count < limit else { throw .presentationsTooDeep(limit: limit) }
        let presenter = chain.topScreen
        let id = ids.presentationID()
        switch request.content {
        case .screen(let spec, let navigation):
            let stackID = ids.stackID()
            let screen = Screen(id: ids.screenID(), spec: spec)
            let stack = Stack(id: stackID, root: screen)
            let link = Chain.Link(
                id: id, style: request.style, presentedBy: presenter, body: .stack(navigation: navigation))
            chain.present(link, holding: stack)
            change.record(.presented(id, style: request.style, by: presenter, stack: stackID, screen: screen.id))
        case .alert(let alert):
            let link = Chain.Link(id: id, style: request.style, presentedBy: presenter, body: .alert(alert))
            chain.present(link, holding: nil)
            change.record(.presented(id, style: request.style, by: presenter, stack: nil, screen: nil))
        }
        change.presented = id
    }

    /// Dismisses presentation `id` (the topmost when nil) and every presentation above it.
    ///
    /// The named one is `dismissed` when there is a result, which goes to the screen that presented
    /// it, else `cancelled`; those above it are `cancelled`, reported from the top down.
    mutating func dismiss(
        _ id: PresentationID?,
        result: JSONValue?,
        into change: inout PendingChange
    ) throws(PresentationError) {
        let index = try linkIndex(of: id)
        let target = chain.links[index]
        if let result, case .alert(let alert) = target.body {
            try alert.check(answer: result)
        }
        let closed = chain.close(from: index)
        for swept in closed.dropFirst().reversed() {
            cancel(swept, into: &change)
        }
        guard let result else {
            cancel(target, into: &change)
            return
        }
        let outcome = PresentationOutcome(
            id: target.id, style: target.style, presentedBy: target.presentedBy, status: .dismissed, result: result)
        outcomes.record(outcome, keeping: change.limits.outcomesKept, bytes: change.limits.maxSessionBytes)
        change.record(.dismissed(target.id, by: target.presentedBy))
        deliver(result, from: .presentation(target.id), to: target.presentedBy, into: &change)
    }

    /// Hands `result` from presentation `id` (the topmost when nil) to the screen that presented
    /// it, and leaves the presentation open: a result that is a stream of values rather than one
    /// (iZettle's Presentation: a signal, not a future), such as a filter sheet applying each
    /// choice as it is made. Each value replaces the presenter's last result and is reported as
    /// a `result` event; the dismiss that ends the stream may hand back one more, or none.
    ///
    /// Refused while an alert is open, as every change but answering it is; so the presentation
    /// is never an alert, whose answer is a single one.
    mutating func emit(
        from id: PresentationID?,
        result: JSONValue,
        into change: inout PendingChange
    ) throws(PresentationError) {
        try refuseIfAlert()
        let source = chain.links[try linkIndex(of: id)]
        deliver(result, from: .presentation(source.id), to: source.presentedBy, into: &change)
    }

    /// Where presentation `id` (the topmost when nil) is in the chain.
    private func linkIndex(of id: PresentationID?) throws(PresentationError) -> Int {
        if let id {
            guard let found = chain.links.firstIndex(where: { $0.id == id }) else { throw .presentationNotFound(id) }
            return found
        }
        guard !chain.links.isEmpty else { throw .nothingPresented }
        return chain.links.count - 1
    }

    /// Replaces the whole tree with a new root stack, cancelling every open presentation from the top down.
    mutating func setRoot(_ spec: ScreenSpec, into change: inout PendingChange) {
        if !chain.links.isEmpty {
            for link in chain.close(from: 0).reversed() {
                cancel(link, into: &change)
            }
        }
        let stackID = ids.stackID()
        let screen = Screen(id: ids.screenID(), spec: spec)
        chain = Chain(root: Stack(id: stackID, root: screen))
        change.record(.rootSet(screen: screen.id, stack: stackID))
    }

    private mutating func cancel(_ link: Chain.Link, into change: inout PendingChange) {
        outcomes.record(
            PresentationOutcome(id: link.id, style: link.style, presentedBy: link.presentedBy, status: .cancelled),
            keeping: change.limits.outcomesKept
        )
        change.record(.cancelled(link.id, by: link.presentedBy))
    }
}
