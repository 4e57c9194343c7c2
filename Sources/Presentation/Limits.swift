/// The bounds that keep one session, and the store, from growing without end.
public struct Limits: Hashable, Sendable {
    /// Screens in one stack.
    public var maxStackLength: Int
    /// Presentations in the chain from the root stack up, alerts included.
    public var maxPresentationDepth: Int
    /// Steps in one `apply`.
    public var maxBatchSteps: Int
    /// Events a session keeps for `events(after:)`.
    public var eventsKept: Int
    /// Closed presentations whose outcome a session remembers.
    public var outcomesKept: Int
    /// Sessions in one store.
    public var maxSessions: Int
    /// Idempotency keys a session remembers.
    public var repliesKept: Int

    public init(
        maxStackLength: Int = 64,
        maxPresentationDepth: Int = 8,
        maxBatchSteps: Int = 100,
        eventsKept: Int = 512,
        outcomesKept: Int = 256,
        maxSessions: Int = 100_000,
        repliesKept: Int = 32
    ) {
        self.maxStackLength = maxStackLength
        self.maxPresentationDepth = maxPresentationDepth
        self.maxBatchSteps = maxBatchSteps
        self.eventsKept = eventsKept
        self.outcomesKept = outcomesKept
        self.maxSessions = maxSessions
        self.repliesKept = repliesKept
    }

    public static let `default` = Limits()
}
