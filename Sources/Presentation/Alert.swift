/// An alert's body: the text, the buttons and the text fields a user answers with.
public struct Alert: Hashable, Sendable {
    public let title: String?
    public let message: String?
    public let actions: [AlertAction]
    public let fields: [AlertField]

    public static let maxActions = 16
    public static let maxFields = 8

    /// Checks what a renderer relies on: something to tap, ids an answer can name unambiguously,
    /// and at most one cancel action (the one a platform binds to Escape or a tap outside).
    public init(
        title: String? = nil,
        message: String? = nil,
        actions: [AlertAction],
        fields: [AlertField] = []
    ) throws(PresentationError) {
        guard !actions.isEmpty else { throw .invalidAlert("an alert needs at least one action") }
        guard actions.count <= Self.maxActions else {
            throw .invalidAlert("an alert has at most \(Self.maxActions) actions")
        }
        guard fields.count <= Self.maxFields else {
            throw .invalidAlert("an alert has at most \(Self.maxFields) fields")
        }
        try Self.checkIDs(actions.map(\.id), of: "action")
        try Self.checkIDs(fields.map(\.id), of: "field")
        guard actions.count(where: { $0.role == .cancel }) <= 1 else {
            throw .invalidAlert("an alert has at most one action with role cancel")
        }
        self.title = title
        self.message = message
        self.actions = actions
        self.fields = fields
    }

    private static func checkIDs(_ ids: [String], of kind: String) throws(PresentationError) {
        var seen: Set<String> = []
        for id in ids {
            guard !id.isEmpty else { throw .invalidAlert("an \(kind) id is empty") }
            guard seen.insert(id).inserted else { throw .invalidAlert("the \(kind) id \"\(id)\" is used twice") }
        }
    }
}
