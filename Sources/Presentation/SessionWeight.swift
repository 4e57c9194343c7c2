import JSON

/// What a session's tree weighs against `Limits.maxSessionBytes`: the bytes of what its clients
/// put in it, as it is held. Every screen's name, title and params and its state's name and
/// params are kept as text, and weigh their bytes; its result is kept parsed, and weighs what
/// that takes (`JSONValue.heldBytes`, up to twelve times its text). An open alert's texts weigh
/// their bytes too: nothing else bounds them but a body's size. Ids and styles are left out:
/// each is bounded by a limit of its own.
///
/// Weighed from the tree, not kept as a running total: a session would carry 8 bytes more, and
/// every operation that adds or removes a screen would have to keep it right. A walk is a
/// few additions a screen, and only a change that adds bytes takes it (`Operation.addedBytes`).
extension Chain {
    var weight: Int {
        var total = 0
        for stack in stacks {
            for screen in stack.path { total += screen.weight }
        }
        if let alert, case .alert(let body) = alert.body { total += body.weight }
        return total
    }
}

extension Screen {
    var weight: Int {
        ScreenSpec.weight(name: name, title: title, paramsText: paramsText) + extrasWeight
    }
}

extension ScreenSpec {
    var weight: Int { Self.weight(name: name, title: title, paramsText: paramsText) }

    /// What a screen's own texts weigh, opened (`Screen`) or asked for (`ScreenSpec`).
    static func weight(name: String, title: String?, paramsText: JSONText) -> Int {
        name.utf8.count + (title?.utf8.count ?? 0) + paramsText.count
    }
}

extension ScreenState {
    var weight: Int { name.utf8.count + paramsText.count }
}

extension Alert {
    var weight: Int {
        var total = (title?.utf8.count ?? 0) + (message?.utf8.count ?? 0)
        for action in actions { total += action.id.utf8.count + action.title.utf8.count }
        for field in fields { total += field.id.utf8.count + (field.placeholder?.utf8.count ?? 0) }
        return total
    }
}

extension Operation {
    /// The most an operation can add to its session's weight: what it brings in. Whatever it
    /// replaces or removes only takes away, so the tree after it weighs at most its weight
    /// before plus this, and an operation that brings nothing (a pop, a dismissal without a
    /// result) cannot take a session past its limit.
    var addedBytes: Int {
        switch self {
        case .push(let spec), .replace(let spec), .setRoot(let spec): spec.weight
        case .present(let request):
            switch request.content {
            case .screen(let spec, _): spec.weight
            case .alert(let alert): alert.weight
            }
        case .pop(let result), .dismiss(_, let result): result?.heldBytes ?? 0
        case .emit(_, let result): result.heldBytes
        case .setState(_, let state, _): state.weight
        case .popToRoot, .popTo: 0
        }
    }
}
