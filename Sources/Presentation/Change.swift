/// What one successful `apply` did.
public struct Change: Hashable, Sendable {
    /// The session's new revision, one more than before.
    public let revision: Int
    public let events: [Event]
    /// The presentation made by the last `present` step, if any: the id a client awaits.
    public let presented: PresentationID?

    public init(revision: Int, events: [Event], presented: PresentationID?) {
        self.revision = revision
        self.events = events
        self.presented = presented
    }
}
