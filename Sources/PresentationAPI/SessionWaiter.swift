import Dispatch
import MicroHTTP
import Presentation

/// Holds a request (long poll, `?wait=`) until the session reaches a state it is waiting
/// for, or time runs out. The connection is parked, so waiting holds no thread.
enum SessionWaiter {
    /// Where waits whose time ran out are answered: one thread per core the process may use,
    /// for the whole process (started by the first such wait).
    static let timeoutAnswers = DeepTreeWorkers(named: "wait-timeouts", count: AvailableProcessors.count)

    /// `ready` returns the answer once the session is in the awaited state (nil: keep
    /// waiting); `timeout` answers with the session as it is when time runs out.
    static func wait(
        for session: Session,
        in store: any SessionStore,
        seconds: Int,
        renewals: LeaseRenewals,
        ready: @escaping @Sendable (Session) -> HTTPResponse?,
        timeout: @escaping @Sendable (Session) -> HTTPResponse
    ) -> HTTPReply {
        let id = session.id
        let deferred = HTTPDeferredResponse()
        let gone = ProblemDetails(for: PresentationError.sessionNotFound).response
        // A wait made with a token that has since been replaced ends refused, not answered.
        let openedWith = session.tokenDigest
        let revoked = ProblemDetails(for: APIError.unauthorized).response
        let guarded = { @Sendable (session: Session) -> HTTPResponse? in
            session.tokenDigest == openedWith ? ready(session) : revoked
        }
        let watch = store.watch(id) { change in
            switch change {
            case .deleted:
                deferred.complete(with: gone)
            case .revised(let revision, let token):
                guard let session = store.session(id) else { return }
                // Told outside the lock, the notice of a change made with the wait's token may
                // come after the token was replaced: the session still as that change left it
                // is that change's answer, not a refusal. Moved on since, it may have moved by
                // changes of that token too, whose notices are still to come: theirs decide.
                if token == openedWith && session.tokenDigest != openedWith {
                    if session.revision == revision, let answer = ready(session) { deferred.complete(with: answer) }
                } else if let answer = guarded(session) {
                    deferred.complete(with: answer)
                }
            }
        }
        guard let watch else { return .now(gone) }
        // Its answer renews the session, but a wait longer than the session's time-to-live
        // would find it expired first.
        let unfollow = renewals.follow(id, openedWith: openedWith, renewedOtherwiseEvery: Double(seconds))
        deferred.onEnd {
            watch.cancel()
            unfollow?()
        }
        // A change may have landed between the caller's look and the watch: look again.
        if let session = store.session(id), let answer = guarded(session) {
            deferred.complete(with: answer)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
            guard deferred.isPending else { return }
            // Not on this libdispatch thread, whose stack (`ulimit -s`) the answer's JSON of a
            // deeply nested session overflows; nor on a thread of its own, as many as the waits
            // that run out together (`DeepTreeWorkers`).
            // The look counts as a use only while the wait's token is the session's: a wait whose
            // token was replaced is refused, and must not keep the session alive either.
            timeoutAnswers.run {
                let session = store.session(id, countingAsUse: { $0.tokenDigest == openedWith })
                deferred.complete(with: session.map { $0.tokenDigest == openedWith ? timeout($0) : revoked } ?? gone)
            }
        }
        return .later(deferred)
    }
}
