/// Who handed a result back: a screen popped off the stack, or a dismissed presentation.
public enum ResultSource: Hashable, Sendable {
    case screen(ScreenID)
    case presentation(PresentationID)
}
