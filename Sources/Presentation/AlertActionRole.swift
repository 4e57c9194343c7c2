/// What an alert button means, so a renderer can style it and bind the cancel one to Escape.
public enum AlertActionRole: String, CaseIterable, Hashable, Sendable {
    case `default`
    case cancel
    case destructive
}
