/// One button of an alert; its `id` is what the answer names.
public struct AlertAction: Hashable, Sendable {
    public let id: String
    public let title: String
    public let role: AlertActionRole

    public init(id: String, title: String, role: AlertActionRole = .default) {
        self.id = id
        self.title = title
        self.role = role
    }
}
