/// What a presentation holds. Indirect because a stack can hold a presentation that holds a stack.
public indirect enum PresentationContent: Hashable, Sendable {
    /// A presented stack; with `navigation: false` it holds exactly one screen and refuses pushes.
    case stack(Stack, navigation: Bool)
    case alert(Alert)
}
