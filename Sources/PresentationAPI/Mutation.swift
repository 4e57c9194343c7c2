#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import JSON
import MicroHTTP
import Presentation
import Synchronization

/// One change request on its way through the store: what it asks, checked and applied under
/// the session's lock (`apply`), and its answer (`finish`), given at once by a store in
/// memory or once written by a durable one, on the journal's thread.
///
/// A store in memory changes the session in place (`SessionStore.changesInPlace`), so the
/// answer is made in `apply`, from the session under its lock: only changes of the same
/// session wait the microsecond longer, and the JSON cache's lock is then taken inside the
/// session's, as a read's always was (never the other way round). Kept for `finish` instead,
/// a copy of the session cost a retain and a release of each of its arrays, and generic
/// copies of the outcome holding it (650 instructions of a push or pop, docs/performance.md,
/// item 81).
///
/// One object for all of it, so that the two closures the store is handed each capture this
/// alone: separate closures, a slot for the outcome and a deferred response cost six
/// allocations a change (docs/performance.md). A change answered before `store.change`
/// returns, as every change in memory is, never makes its `HTTPDeferredResponse`.
final class Mutation: Sendable {
    /// What a change asks: one step, as every route but a batch does, kept as it is (an array
    /// of one cost an allocation and generic copies of the step a change), or a batch.
    enum Steps: Sendable {
        case one(Step)
        case batch([Step])
    }

    enum Outcome: Sendable {
        /// Applied by a store that writes it first: the answer is made once it is written.
        case applied(Session, PresentationID?)
        /// Applied in place, and answered there and then.
        case answered(HTTPResponse)
        /// The answer of a keyed change, recorded in the session under the key, or found there.
        case recorded(RecordedReply, Replay)
        case replayed(RecordedReply, Replay)
    }

    /// Where a recorded answer is kept: what names it among the answers being sent.
    struct Replay: Sendable {
        let session: SessionID
        let key: String
    }

    private enum Reply {
        /// Neither answered nor handed to the connection yet.
        case pending
        /// Answered before `reply()` was asked for.
        case answered(HTTPResponse)
        /// Handed to the connection, which waits for it parked.
        case parked(HTTPDeferredResponse)
    }

    private struct State {
        var outcome: Outcome?
        var reply = Reply.pending
    }

    private let api: PresentationAPI
    /// The step of a change of one, else nil and the steps of a batch in `batch`: kept apart
    /// rather than as `Steps`, whose payload was copied out each time it was read.
    private let step: Step?
    private let batch: [Step]
    private let token: SessionTokenDigest
    private let key: String?
    private let fingerprint: Fingerprint.Keyed
    /// The `If-Match` revisions: nil without the header, `.some(nil)` for `*`.
    private let expected: [Int]??
    private let moment: Date
    private let limits: Limits
    private let preference: ReturnPreference
    private let edit: TreeLayout.Edit?
    /// The store changes sessions in place: `apply` makes the answer.
    private let answersInPlace: Bool
    private let state = Mutex(State())

    init(
        api: PresentationAPI, steps: Steps, token: SessionTokenDigest, key: String?, fingerprint: Fingerprint.Keyed,
        expected: [Int]??, moment: Date, limits: Limits, preference: ReturnPreference, answersInPlace: Bool
    ) {
        self.api = api
        self.answersInPlace = answersInPlace
        self.token = token
        self.key = key
        self.fingerprint = fingerprint
        self.expected = expected
        self.moment = moment
        self.limits = limits
        self.preference = preference
        switch consume steps {
        case .one(let step):
            edit = TreeLayout.Edit(step)
            self.step = step
            batch = []
        case .batch(let steps):
            edit = TreeLayout.Edit(steps)
            step = nil
            batch = steps
        }
    }

    /// The change, under the session's lock. Whatever may throw comes before it, and
    /// `Session.apply` is all or nothing, so the session is as it was whenever this throws:
    /// what `SessionStore.change` asks of it.
    func apply(to session: inout Session) throws {
        guard session.tokenDigest.matches(token) else { throw APIError.unauthorized }
        if let key, let previous = session.replies.reply(for: key) {
            guard fingerprint.matches(previous.fingerprint) else { throw APIError.idempotencyKeyReused }
            return keep(.replayed(previous, Replay(session: session.id, key: key)))
        }
        if let expected, let revisions = expected, !revisions.contains(session.revision) {
            throw PresentationError.revisionMismatch(current: session.revision)
        }
        let change =
            if let step { try session.apply(step, at: moment, limits: limits) } else {
                try Self.apply(batch, to: &session, at: moment, limits: limits)
            }
        guard let key else {
            return keep(
                answersInPlace
                    ? .answered(api.answer(applied: session, change.presented, preference, edit))
                    : .applied(session, change.presented))
        }
        // The answer is kept with the session so a retry gets these exact bytes.
        var writer = JSONWriter()
        writer.write(session: session, presented: change.presented)
        let reply = RecordedReply(fingerprint: fingerprint.recorded, status: 200, body: writer.bytes, revision: session.revision)
        session.replies.record(reply, for: key, keeping: limits.repliesKept, bytes: limits.replyBytesKept)
        keep(.recorded(reply, Replay(session: session.id, key: key)))
    }

    /// A batch's steps applied as one change. The domain reports a failing step by its index
    /// only in a batch of several (a batch of one is applied as that step); the API names it in
    /// any batch, one step long or not, as its problem's `operation` (docs/api.md).
    private static func apply(
        _ batch: [Step], to session: inout Session, at moment: Date, limits: Limits
    ) throws(PresentationError) -> Change {
        do {
            return try session.apply(batch, at: moment, limits: limits)
        } catch {
            // A batch of one names its operation as a batch of several does; the session's
            // weight is the whole batch's doing (a batch of several names no operation for it).
            if case .sessionTooLarge = error { throw error }
            guard batch.count == 1 else { throw error }
            throw .batchStepFailed(index: 0, error)
        }
    }

    private func keep(_ outcome: Outcome) {
        state.withLock { $0.outcome = outcome }
    }

    /// The store's word on the change: nil once it is made (and durable, if the store is).
    func finish(_ failure: (any Error)?) {
        let response: HTTPResponse
        if let failure {
            response = ProblemDetails(for: failure).response
        } else {
            guard let outcome = state.withLock({ $0.outcome.take() }) else {
                preconditionFailure("a change succeeded without an outcome")
            }
            // Taken apart here: handed on whole, the outcome was copied through its generic witness.
            if case .answered(let answer) = outcome {
                response = answer
            } else {
                response = api.answer(outcome, preference, edit)
            }
        }
        let parked = state.withLock { state -> HTTPDeferredResponse? in
            if case .parked(let deferred) = state.reply { return deferred }
            state.reply = .answered(response)
            return nil
        }
        parked?.complete(with: response)
    }

    /// For the handler, once the store has the change: the answer if it came already, or a
    /// promise of it, which parks the connection until `finish` completes it. A shutdown does
    /// not cut that wait short: the write may be on disk already, and the journal finishes its
    /// queue first.
    func reply() -> HTTPReply {
        state.withLock { state in
            if case .answered(let response) = state.reply { return .now(response) }
            let deferred = HTTPDeferredResponse(endsWithShutdown: false)
            state.reply = .parked(deferred)
            return .later(deferred)
        }
    }
}
