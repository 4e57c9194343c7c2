#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One user interface's navigation state: a tree of stacks and presentations, its history, and its revision.
///
/// A value: the store hands out copies and commits a changed one under its lock, and `apply`
/// works on a copy, so a failed step never leaves a half-done change behind.
public struct Session: Equatable, Sendable {
    public let id: SessionID
    /// The digest of the bearer token; the token itself is not kept.
    public private(set) var tokenDigest: SessionTokenDigest
    /// 1 right after creation; each successful `apply` adds exactly one.
    public private(set) var revision: Int
    public let createdAt: Date
    public private(set) var updatedAt: Date
    /// Replies to requests made with an idempotency key; the API layer reads and records them.
    public var replies = ReplyLog()

    var chain: Chain
    var ids: IDCounter
    var history = EventHistory()
    var outcomes = OutcomeLog()

    /// A session whose root stack holds one screen; its creation is the `rootSet` event of revision 1.
    public init(id: SessionID, token: SessionToken, root: ScreenSpec, now: Date) {
        var ids = IDCounter()
        let stackID = ids.stackID()
        let screen = Screen(id: ids.screenID(), spec: root)
        self.id = id
        self.tokenDigest = SessionTokenDigest(of: token)
        self.revision = 1
        self.createdAt = now
        self.updatedAt = now
        self.chain = Chain(root: Stack(id: stackID, root: screen))
        self.ids = ids
        history.append(
            [Event(revision: 1, time: now, kind: .rootSet(screen: screen.id, stack: stackID))], keeping: .max)
    }

    /// A session from parts that `init(id:tokenDigest:restoring:limits:)` has already checked.
    init(
        id: SessionID, tokenDigest: SessionTokenDigest, revision: Int, createdAt: Date, updatedAt: Date,
        replies: ReplyLog, chain: Chain, ids: IDCounter, history: EventHistory, outcomes: OutcomeLog
    ) {
        self.id = id
        self.tokenDigest = tokenDigest
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.replies = replies
        self.chain = chain
        self.ids = ids
        self.history = history
        self.outcomes = outcomes
    }

    /// The root stack, with every presentation nested inside it.
    public var root: Stack { chain.root }

    public var top: Top { chain.top }

    /// The topmost stack's last screen (under an alert, if one is open). Cheaper than
    /// `screen(top.screen)`, which searches from the root stack: a push's answer asks for it,
    /// and the stacks below are most likely out of the cache (docs/performance.md, item 79).
    public var topmostScreen: Screen { chain.topmostScreen }

    /// The last presentation opened (an alert, or the one holding the topmost stack), nil when
    /// none is: what a present put there. Built from that presentation alone, not from `root`.
    public var topmostPresentation: Presentation? { chain.topmostPresentation }

    /// How many presentations are open, an alert included.
    public var presentationCount: Int { chain.links.count }

    public func screen(_ id: ScreenID) -> Screen? {
        chain.screen(id)
    }

    /// Applies `steps` in order, all or nothing, as one new revision.
    ///
    /// On success the revision goes up by exactly one, the events are recorded with that revision and
    /// `now`, and `updatedAt` becomes `now`. On failure `self` is unchanged; a failing step of a batch of
    /// more than one is reported as `.batchStepFailed(index:_:)`.
    public mutating func apply(_ steps: [Step], at now: Date, limits: Limits) throws(PresentationError) -> Change {
        guard !steps.isEmpty else { throw .emptyBatch }
        guard steps.count <= limits.maxBatchSteps else { throw .batchTooLarge(limit: limits.maxBatchSteps) }
        if steps.count == 1 { return try apply(steps[0], at: now, limits: limits) }
        var change = PendingChange(revision: revision + 1, time: now, limits: limits)
        // A later step may fail after earlier ones changed the tree: the batch runs on a copy.
        var draft = self
        for (index, step) in steps.enumerated() {
            do {
                try draft.perform(step, into: &change)
            } catch {
                throw .batchStepFailed(index: index, error)
            }
        }
        let added = steps.reduce(0) { $0 + $1.operation.addedBytes }
        if added > 0 { try draft.checkWeight(against: self, adding: added, limits: limits) }
        self = draft
        return record(change, at: now, limits: limits)
    }

    /// Applies one step as a change of its own: what every route but a batch asks, given
    /// without an array (an array of one step cost an allocation and generic copies a change).
    ///
    /// One step checks everything before it changes anything (`perform`), so it runs on the
    /// session itself: no copy, and arrays that no one else holds change in place.
    public mutating func apply(_ step: Step, at now: Date, limits: Limits) throws(PresentationError) -> Change {
        var change = PendingChange(revision: revision + 1, time: now, limits: limits)
        let added = step.operation.addedBytes
        if added > 0, chain.weight + added > limits.maxSessionBytes {
            // It may pass the limit, which only the tree it makes can tell: made on a copy.
            var draft = self
            try draft.perform(step, into: &change)
            try draft.checkWeight(against: self, adding: added, limits: limits)
            self = draft
        } else {
            try perform(step, into: &change)
        }
        return record(change, at: now, limits: limits)
    }

    /// Throws `.sessionTooLarge` when this session, `before` changed by operations that brought
    /// in `added` bytes, weighs more than the limit and more than `before` did: a session over
    /// its limit (the limit lowered at a restart) may still change in every way that shrinks it.
    private func checkWeight(against before: Session, adding added: Int, limits: Limits) throws(PresentationError) {
        let limit = limits.maxSessionBytes
        let old = before.chain.weight
        guard old + added > limit else { return }
        let new = chain.weight
        if new > limit && new > old { throw .sessionTooLarge(limit: limit) }
    }

    /// Makes `change`, performed on this session, its next revision.
    private mutating func record(_ change: PendingChange, at now: Date, limits: Limits) -> Change {
        let events = change.events
        revision = change.revision
        // Never back: the wall clock may step back (NTP, a VM resumed), and a session whose
        // `updatedAt` is earlier than its `createdAt` is one `init(restoring:)` refuses, so a
        // restart would refuse the whole file.
        updatedAt = max(updatedAt, now)
        history.append(events, keeping: limits.eventsKept, bytes: limits.maxSessionBytes)
        return Change(revision: change.revision, events: events, presented: change.presented)
    }

    /// Makes `token` the only one that opens this session, revoking the previous one.
    ///
    /// Not a navigation change: the revision stays, and no event is recorded.
    public mutating func replaceToken(with token: SessionToken) {
        tokenDigest = SessionTokenDigest(of: token)
    }

    /// The events after `revision`, oldest first; `.historyExpired` when some of them were trimmed.
    public func events(after revision: Int) throws(PresentationError) -> [Event] {
        try history.events(after: revision, current: self.revision)
    }

    /// Throws what `events(after:)` would refuse, without reading the events: for a caller
    /// that must know before it reads whether the request will be answered.
    public func checkEventsKept(after revision: Int) throws(PresentationError) {
        try history.checkKept(after: revision, current: self.revision)
    }

    /// Every event still kept, oldest first, for a client that asks without a starting revision.
    public var keptEvents: [Event] { history.events }

    /// What became of presentation `id`: `presented` while open, else how it closed, while remembered.
    public func outcome(of id: PresentationID) throws(PresentationError) -> PresentationOutcome {
        if let open = chain.links.first(where: { $0.id == id }) {
            return PresentationOutcome(id: id, style: open.style, presentedBy: open.presentedBy, status: .presented)
        }
        guard let closed = outcomes.outcome(of: id) else { throw .outcomeNotKept(id) }
        return closed
    }

    /// The last value presentation `id` emitted (`Operation.emit`), nil when it has emitted none.
    /// Its presenter holds it as its result: while the presentation is up nothing else can hand
    /// that screen one, so no state of its own is kept for it.
    ///
    /// A presentation closed by a cancel handed nothing at its close, so a result its presenter
    /// still holds from it is the last value it emitted: a poller that last saw an earlier value
    /// learns of it with the close (else it heard `cancelled` and nothing, while the presenter
    /// shows the value). Nil for one dismissed with a result, which is what counts then, and
    /// once the presenter has been handed another result or is gone.
    public func lastEmitted(by id: PresentationID) -> DeliveredResult? {
        let presenter: ScreenID
        if let link = chain.links.first(where: { $0.id == id }) {
            presenter = link.presentedBy
        } else if let closed = outcomes.outcome(of: id), closed.status == .cancelled {
            presenter = closed.presentedBy
        } else {
            return nil
        }
        guard let result = screen(presenter)?.result, result.source == .presentation(id) else { return nil }
        return result
    }
}
