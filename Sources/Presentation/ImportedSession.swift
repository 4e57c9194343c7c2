/// A session read from a document (`POST /v1/sessions/import`), checked against every
/// invariant the operations keep and against a store's limits, waiting for the store to give
/// it an id and a token of its own.
///
/// Checked before it reaches the store, so that whoever asks for the import can refuse a bad
/// document before counting the request against anything (the creation rate: a refused body
/// costs nothing), and checked once: the store only names it.
public struct ImportedSession: Sendable {
    /// The session under a placeholder identity that no request can name.
    private let checked: Session
    /// The limits it was checked against; a store takes it only under the same.
    let limits: Limits

    /// `snapshot` checked as `Session(id:tokenDigest:restoring:limits:)` checks it
    /// (`.invalidSnapshot` says what is wrong).
    public init(checking snapshot: Session.Snapshot, limits: Limits) throws(PresentationError) {
        guard snapshot.revision <= Self.maxCounter, snapshot.lastIssuedID <= Self.maxCounter else {
            throw .invalidSnapshot("the revision and lastIssuedID must be at most \(Self.maxCounter)")
        }
        checked = try Session(
            id: .unassigned, tokenDigest: SessionTokenDigest(hashing: ""), restoring: snapshot, limits: limits)
        try Self.checkResultSources(in: snapshot.root, lastIssued: snapshot.lastIssuedID)
        // A new session, so held to the limit as a created one is. A session read back from
        // disk is not: the limit may have been lowered since, and that session may still shrink.
        guard checked.chain.weight <= limits.maxSessionBytes else {
            throw .sessionTooLarge(limit: limits.maxSessionBytes)
        }
        self.limits = limits
    }

    /// Every result's source is an id the counter issued: one past it is an id the counter
    /// issues next, and a presentation given it would report the value as one it emitted.
    /// Checked here rather than in `Session(restoring:)`: servers before this check imported
    /// such documents and stored them, and a refusal at start-up refuses the whole file.
    private static func checkResultSources(in root: Stack, lastIssued: Int) throws(PresentationError) {
        let numbers = IssuedNumbers(last: lastIssued)
        var next: Stack? = root
        while let stack = next {
            for result in stack.path.compactMap(\.result) {
                switch result.source {
                case .screen(let id): try numbers.checkIssued(id.rawValue, prefix: "s")
                case .presentation(let id): try numbers.checkIssued(id.rawValue, prefix: "p")
                }
            }
            next = if case .stack(let held, _)? = stack.presentation?.content { held } else { nil }
        }
    }

    /// The largest revision and id counter a document may hold: 2^53 - 1, the largest integer
    /// every JSON reader keeps exactly (a client's revision must be the server's).
    public static let maxCounter = (1 << 53) - 1

    /// The session under the id and token a store drew for it.
    func session(id: SessionID, token: SessionToken) -> Session {
        checked.identified(as: id, tokenDigest: SessionTokenDigest(of: token))
    }
}
