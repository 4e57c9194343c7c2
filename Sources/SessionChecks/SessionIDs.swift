public import Presentation

/// The screens and presentations a session's tree holds now, from the root up: what the fuzzer's
/// steps name most of the time, so that they reach deep states instead of "not found".
public struct SessionIDs {
    public private(set) var screens: [ScreenID] = []
    public private(set) var presentations: [PresentationID] = []

    public init(_ session: Session) {
        var stack: Stack? = session.root
        while let current = stack {
            stack = nil
            screens.append(contentsOf: current.path.map(\.id))
            guard let presentation = current.presentation else { break }
            presentations.append(presentation.id)
            if case .stack(let next, _) = presentation.content { stack = next }
        }
    }
}
