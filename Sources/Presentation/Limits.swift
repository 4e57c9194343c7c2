/// The bounds that keep one session, and the store, from growing without end.
public struct Limits: Hashable, Sendable {
    /// Screens in one stack.
    public var maxStackLength: Int
    /// Presentations in the chain from the root stack up, alerts included.
    public var maxPresentationDepth: Int
    /// Steps in one `apply`.
    public var maxBatchSteps: Int
    /// Events a session keeps for `events(after:)`. The default, 128, is minutes of a person's
    /// navigation for a client to resume from; one further behind refetches the session (410
    /// `history_expired`). A long-lived session holds its whole kept history, about 30 bytes an
    /// event in memory: at 512 such a session took 18 KB, at 128 it takes 8.5 KB
    /// (docs/performance.md, stop 22).
    public var eventsKept: Int
    /// Closed presentations whose outcome a session remembers.
    public var outcomesKept: Int
    /// The most bytes a session's clients may put in its tree, as they are held: screens'
    /// names, titles and params, their states and results, a result weighed parsed, and an
    /// open alert's texts (`Chain.weight`). A change past it is refused, unless it shrinks the session. The events
    /// and the outcomes a session keeps are trimmed, oldest first, to as many bytes each, so a
    /// session holds at most about three times this, and its replies (`replyBytesKept`).
    /// Without it each screen could hold a body's worth (1 MiB), and one session's holder
    /// could make it hundreds of megabytes.
    public var maxSessionBytes: Int
    /// Sessions in one store.
    public var maxSessions: Int
    /// Idempotency keys a session remembers.
    public var repliesKept: Int
    /// The most bytes those keys' replies hold in one session: past it the oldest go first,
    /// whatever their count (the newest is kept even alone past it). A reply is the session's
    /// whole tree as the change left it, so 32 of a large session made it 33 times its size,
    /// in memory, on disk and in every durable write of it.
    public var replyBytesKept: Int
    /// Seconds a session lives without being read or changed, unless its creator asked for its own.
    public var sessionTTL: Int
    /// The longest idle time a creator may ask for; longer asks are cut to it.
    public var maxSessionTTL: Int
    /// Bytes a durable store may hold; past them new sessions are refused (existing ones go on).
    public var maxStoredBytes: Int

    public init(
        maxStackLength: Int = 64,
        maxPresentationDepth: Int = 8,
        maxBatchSteps: Int = 100,
        eventsKept: Int = 128,
        outcomesKept: Int = 256,
        maxSessionBytes: Int = 4 << 20,
        maxSessions: Int = 100_000,
        repliesKept: Int = 32,
        replyBytesKept: Int = 1 << 20,
        sessionTTL: Int = 86_400,
        maxSessionTTL: Int = 7 * 86_400,
        maxStoredBytes: Int = 1 << 30
    ) {
        self.maxStackLength = maxStackLength
        self.maxPresentationDepth = maxPresentationDepth
        self.maxBatchSteps = maxBatchSteps
        self.eventsKept = eventsKept
        self.outcomesKept = outcomesKept
        self.maxSessionBytes = maxSessionBytes
        self.maxSessions = maxSessions
        self.repliesKept = repliesKept
        self.replyBytesKept = replyBytesKept
        self.sessionTTL = sessionTTL
        self.maxSessionTTL = maxSessionTTL
        self.maxStoredBytes = maxStoredBytes
    }

    public static let `default` = Limits()

    /// The idle time a session gets when its creator asks for `requested` seconds (nil: the default).
    public func timeToLive(requested: Int?) -> Int {
        min(max(requested ?? sessionTTL, 1), maxSessionTTL)
    }

    /// Refuses a new session whose root screen alone passes `maxSessionBytes` (possible when
    /// it is set below a body). Public so that whoever asks for a creation can refuse such a
    /// body before counting the request against anything, as an import's document is refused
    /// (`ImportedSession`): the creation rate takes nothing for a refused body.
    public func checkNewSession(root: ScreenSpec) throws(PresentationError) {
        guard root.weight <= maxSessionBytes else { throw .sessionTooLarge(limit: maxSessionBytes) }
    }
}
