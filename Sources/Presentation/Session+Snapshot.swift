#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Session {
    /// Everything a session holds but its id and token digest, as public values: what storage
    /// writes to disk and an export hands out, and what `init(id:tokenDigest:restoring:limits:)`
    /// checks and takes back.
    ///
    /// A snapshot is plain data; nothing about it is trusted until a session is restored from it.
    public struct Snapshot: Hashable, Sendable {
        /// 1 right after creation.
        public var revision: Int
        public var createdAt: Date
        public var updatedAt: Date
        /// The tree, nested from the root stack.
        public var root: Stack
        /// The last number the session's one id counter issued (screens, stacks and presentations share it).
        public var lastIssuedID: Int
        /// The kept events, oldest first.
        public var events: [Event]
        /// Every event of this revision and earlier was dropped; 0 while nothing was.
        public var eventsDroppedThrough: Int
        /// What became of closed presentations, oldest first.
        public var outcomes: [PresentationOutcome]
        /// Replies kept for idempotency keys, oldest first.
        public var replies: ReplyLog

        public init(
            revision: Int,
            createdAt: Date,
            updatedAt: Date,
            root: Stack,
            lastIssuedID: Int,
            events: [Event],
            eventsDroppedThrough: Int,
            outcomes: [PresentationOutcome],
            replies: ReplyLog = ReplyLog()
        ) {
            self.revision = revision
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.root = root
            self.lastIssuedID = lastIssuedID
            self.events = events
            self.eventsDroppedThrough = eventsDroppedThrough
            self.outcomes = outcomes
            self.replies = replies
        }
    }

    /// The parts of a snapshot, for a writer that streams them (storage, on every durable
    /// change) rather than copying the kept events into an array first: storage writes the
    /// events it lacks in their binary form (`forEachKeptEventRecord(after:)`).
    public var lastIssuedID: Int { ids.lastIssued }
    public var eventsDroppedThrough: Int { history.droppedThrough }
    public var keptEventCount: Int { history.count }
    public var keptOutcomes: [PresentationOutcome] { outcomes.all }
    public var keptOutcomeCount: Int { outcomes.count }

    /// Calls `body` with each kept outcome, oldest first: for storage, which writes them all on
    /// every write of the session, without the array `keptOutcomes` makes.
    public func forEachKeptOutcome(_ body: (PresentationOutcome) throws -> Void) rethrows {
        try outcomes.forEach(body)
    }

    /// Calls `body` with the revision and binary form of each kept event above `revision`.
    package func forEachKeptEventRecord<Failure: Error>(
        after revision: Int, _ body: (Int, ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        try history.forEachRecord(after: revision, body)
    }

    /// The bytes the kept events take in their binary form.
    package var keptEventBytes: Int { history.byteCount }

    /// What is presented on one level of the tree, without the stack it holds (which is the
    /// next level's).
    package struct PresentedLevel {
        package let id: PresentationID
        package let style: PresentationStyle
        package let presentedBy: ScreenID
        /// Whether a presented stack may navigate; false for an alert.
        package let navigation: Bool
        /// The alert, when this is one; it ends the tree.
        package let alert: Alert?
    }

    /// Calls `body` with each stack of the tree from the root up (its `presentation` nil) and
    /// what is presented on it: the nested `root` taken level by level, for a writer that
    /// streams it (storage, on every durable change) without building it.
    package func forEachLevel(_ body: (Stack, PresentedLevel?) -> Void) {
        let stacks = chain.stacks
        let links = chain.links
        for (index, stack) in stacks.enumerated() {
            let stack = stack.stack(presenting: nil)
            guard index < links.count else { return body(stack, nil) }
            let link = links[index]
            let alert: Alert? = if case .alert(let alert) = link.body { alert } else { nil }
            body(
                stack,
                PresentedLevel(
                    id: link.id, style: link.style, presentedBy: link.presentedBy, navigation: link.navigation,
                    alert: alert))
        }
    }

    /// This session as plain values, for storage and export.
    public var snapshot: Snapshot {
        Snapshot(
            revision: revision, createdAt: createdAt, updatedAt: updatedAt, root: root,
            lastIssuedID: lastIssuedID, events: history.events, eventsDroppedThrough: eventsDroppedThrough,
            outcomes: keptOutcomes, replies: replies)
    }
}
