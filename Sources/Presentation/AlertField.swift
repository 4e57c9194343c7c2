/// A text field of an alert; the answer's `fields` object carries its text under `id`.
public struct AlertField: Hashable, Sendable {
    public let id: String
    public let placeholder: String?
    /// Shown as dots, for passwords.
    public let secure: Bool

    public init(id: String, placeholder: String? = nil, secure: Bool = false) {
        self.id = id
        self.placeholder = placeholder
        self.secure = secure
    }
}
