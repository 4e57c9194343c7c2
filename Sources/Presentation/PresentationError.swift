/// Everything the domain can refuse, as a closed set; the API layer alone turns each case into a response.
public enum PresentationError: Error, Hashable, Sendable {
    case sessionNotFound
    case screenNotFound(ScreenID)
    /// Not currently presented: never was, or already closed.
    case presentationNotFound(PresentationID)
    /// Neither open nor among the closed presentations whose outcome the session keeps: never
    /// presented, or closed before the newest `Limits.outcomesKept`.
    case outcomeNotKept(PresentationID)
    case cannotPopRoot
    case alreadyOnTop(ScreenID)
    /// The screen exists, but lower down than the topmost stack, which is the only one operations touch.
    case screenNotInTopStack(ScreenID)
    /// The step named a top (`from`) that is no longer the top, typically a repeated tap.
    case topChanged(expected: ScreenID, actual: ScreenID)
    case nothingPresented
    /// The stack belongs to a presentation made with `navigation: false`.
    case navigationDisabled(StackID)
    case blockedByAlert(PresentationID)
    case unknownAlertAction(String)
    case invalidAlertResult(String)
    case invalidScreen(String)
    case invalidState(String)
    case invalidAlert(String)
    case invalidPresentation(String)
    case stackTooLong(limit: Int)
    case presentationsTooDeep(limit: Int)
    /// The change would make the session's tree weigh more than `Limits.maxSessionBytes`.
    case sessionTooLarge(limit: Int)
    case batchTooLarge(limit: Int)
    case emptyBatch
    case tooManySessions(limit: Int)
    /// The store holds `limit` bytes or more; existing sessions go on, new ones wait.
    case storageLimitReached(limit: Int)
    /// The process holds `limit` bytes of memory or more (`MemoryBudget`); existing sessions
    /// go on, new ones wait.
    case memoryLimitReached(limit: Int)
    /// The session has had more than `bytesPerSecond` a second written to storage of late
    /// (`WriteBudget`, which counts every session): the change was not made; it may be in
    /// `retryAfter` seconds.
    case writeRateLimited(bytesPerSecond: Int, retryAfter: Int)
    /// The disk is full: the change was not written and the session is as it was.
    case storageFull
    /// Storage failed otherwise (an I/O error, a read-only disk): nothing was written.
    case storageFailed(String)
    /// A snapshot (stored or imported) breaks an invariant; the reason names it.
    case invalidSnapshot(String)
    /// Events after the asked revision were trimmed; `oldest` is the earliest revision one can still ask events after.
    case historyExpired(oldest: Int)
    case revisionAhead(current: Int)
    case revisionMismatch(current: Int)
    /// The request's token was the session's when the request was read, but was replaced
    /// before its turn came: a deletion queued behind a token rotation's write, which must not
    /// act with the token that rotation revoked.
    case tokenReplaced
    /// Step `index` (from 0) of a batch of several failed; nothing of the batch was applied.
    indirect case batchStepFailed(index: Int, PresentationError)
}
