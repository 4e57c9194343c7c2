/// What a client asks to present; the style and the content are checked to agree.
public struct PresentationRequest: Hashable, Sendable {
    /// A screen for the new stack, or an alert body.
    public enum Content: Hashable, Sendable {
        /// With `navigation: false` the presented stack keeps its one screen and refuses pushes.
        case screen(ScreenSpec, navigation: Bool)
        case alert(Alert)
    }

    public let style: PresentationStyle
    public let content: Content

    public init(style: PresentationStyle, content: Content) throws(PresentationError) {
        switch (style, content) {
        case (.alert, .alert), (.modal, .screen), (.sheet, .screen), (.fullScreen, .screen), (.popover, .screen):
            break
        case (.alert, .screen):
            throw .invalidPresentation("style alert presents an alert, not a screen")
        case (_, .alert):
            throw .invalidPresentation("style \(style.rawValue) presents a screen, not an alert")
        }
        self.style = style
        self.content = content
    }
}
