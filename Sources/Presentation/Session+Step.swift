import JSON

extension Session {
    /// Performs one step of a batch.
    ///
    /// Every operation checks all it needs before it changes anything, so a step that throws
    /// leaves the session exactly as it was: `apply` runs a single step on the session itself
    /// on that promise (InvariantTests and the fuzz targets' StepSequenceCheck hold it to it).
    mutating func perform(_ step: Step, into change: inout PendingChange) throws(PresentationError) {
        let actual = chain.topScreen
        if let expected = step.expectedTop, expected != actual {
            throw .topChanged(expected: expected, actual: actual)
        }
        switch step.operation {
        case .push(let spec): try push(spec, into: &change)
        case .pop(let result): try pop(result: result, into: &change)
        case .popToRoot: try popToRoot(into: &change)
        case .popTo(let id): try pop(to: id, into: &change)
        case .replace(let spec): try replace(with: spec, into: &change)
        case .present(let request): try present(request, into: &change)
        case .dismiss(let id, let result): try dismiss(id, result: result, into: &change)
        case .emit(let id, let result): try emit(from: id, result: result, into: &change)
        case .setRoot(let spec): setRoot(spec, into: &change)
        case .setState(let id, let state, let transition): try setState(state, of: id, transition: transition, into: &change)
        }
    }

    /// Everything but dismissing waits until an alert over the top screen is answered.
    func refuseIfAlert() throws(PresentationError) {
        if let alert = chain.alert { throw .blockedByAlert(alert.id) }
    }

    /// Hands `value` to screen `id` and records it.
    mutating func deliver(
        _ value: JSONValue, from source: ResultSource, to id: ScreenID, into change: inout PendingChange
    ) {
        chain.deliver(DeliveredResult(source: source, value: value, revision: change.revision), to: id)
        change.record(.result(to: id, from: source, value: value))
    }
}
