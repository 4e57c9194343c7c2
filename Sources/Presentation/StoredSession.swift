/// What a journal holds of a session, as the store tells it with each write of that session.
///
/// The store keeps the last written session anyway (a change is made on top of it), so the
/// journal is told what it needs of it rather than keeping an entry of its own for every
/// session: at 100,000 sessions, that dictionary cost about 85 bytes a session
/// (docs/performance.md, item 99).
public struct StoredSession: Sendable, Equatable {
    public let id: SessionID
    /// The revision last written: every event kept up to it is in the journal.
    public let revision: Int
    /// The history of that revision had dropped every event up to this one.
    public let eventsDroppedThrough: Int
    /// What it takes in the journal, as the journal's `save` answered.
    public let bytes: Int

    /// `session` as written, taking `bytes`.
    public init(_ session: borrowing Session, bytes: Int) {
        id = session.id
        revision = session.revision
        eventsDroppedThrough = session.eventsDroppedThrough
        self.bytes = bytes
    }
}
