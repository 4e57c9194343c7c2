import Foundation
public import Presentation

/// The operation-sequence fuzz target's check: bytes become batches of steps applied to one
/// session through the domain's API, and after each one the session must keep its promises.
///
/// - A failed `apply` leaves the session exactly as it was (`==`, history and replies included).
/// - A successful one adds exactly one revision, records its events (non-empty, all of that
///   revision) at the end of the history, and sets `updatedAt`; screens' states change only
///   as its `state-set` events say.
/// - The tree stays valid (`TreeCheck`, limits included) and no id is ever issued twice.
/// - The session survives its own snapshot: restoring it (as start-up and import do) gives the
///   same session back.
public enum StepSequenceCheck {
    /// Small limits, so that short inputs reach every "too long", "too deep" and trimming path.
    public static let limits = Limits(
        maxStackLength: 5, maxPresentationDepth: 3, maxBatchSteps: 3, eventsKept: 16, outcomesKept: 4,
        repliesKept: 4)

    /// How a run went, for tests that want more than "no violation".
    public struct Report: Equatable, Sendable {
        public var batches = 0
        public var applied = 0
    }

    static let id = SessionID(rawValue: "FuzzFuzzFuzzFuzzFuzzFA")!
    static let token = SessionToken(rawValue: String(repeating: "f", count: 43))!
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Runs the steps `bytes` decode to; throws the first broken promise.
    @discardableResult
    public static func run(_ bytes: [UInt8]) throws(Violation) -> Report {
        var script = StepScript(bytes)
        let rootSpec = try! ScreenSpec(name: "home")
        var session = Session(id: id, token: token, root: rootSpec, now: start)
        var everSeen = try checked(session)
        var current = everSeen
        var report = Report()
        while !script.isAtEnd {
            let steps = script.nextBatch(for: session)
            let before = session
            let now = start.addingTimeInterval(Double(report.batches + 1))
            report.batches += 1
            let change: Change
            do {
                change = try session.apply(steps, at: now, limits: limits)
            } catch {
                guard session == before else {
                    throw Violation("\(steps) failed with \(error) but changed the session")
                }
                continue
            }
            report.applied += 1
            try checkChange(change, of: steps, from: before, to: session, at: now)
            let ids = try checked(session)
            let fresh = ids.subtracting(current)
            guard fresh.isDisjoint(with: everSeen) else {
                throw Violation("\(steps) issued ids again: \(fresh.intersection(everSeen).sorted())")
            }
            everSeen.formUnion(ids)
            current = ids
        }
        return report
    }

    private static func checkChange(
        _ change: Change, of steps: [Step], from before: Session, to session: Session, at now: Date
    ) throws(Violation) {
        guard session.revision == before.revision + 1, change.revision == session.revision else {
            throw Violation("\(steps) went from revision \(before.revision) to \(session.revision) (change says \(change.revision))")
        }
        guard !change.events.isEmpty, change.events.allSatisfy({ $0.revision == change.revision && $0.time == now })
        else {
            throw Violation("\(steps) recorded events \(change.events) for revision \(change.revision)")
        }
        if change.events.count <= limits.eventsKept, Array(session.keptEvents.suffix(change.events.count)) != change.events {
            throw Violation("\(steps): the history does not end with the change's events")
        }
        guard session.updatedAt == now else { throw Violation("\(steps) left updatedAt at \(session.updatedAt)") }
        // A screen's state changes only by set-state: each screen in the tree shows the last
        // state the change's events set on it, or else what it showed before (none when new).
        var set: [ScreenID: ScreenState] = [:]
        for event in change.events {
            if case .stateSet(let screen, let state, _) = event.kind { set[screen] = state }
        }
        for id in SessionIDs(session).screens {
            let expected = set[id] ?? before.screen(id)?.state
            guard session.screen(id)?.state == expected else {
                throw Violation("\(steps): screen \(id) shows \(String(describing: session.screen(id)?.state)), not \(String(describing: expected))")
            }
        }
        // Open, or closed by a later step of the same batch and remembered as such.
        if let presented = change.presented, (try? session.outcome(of: presented)) == nil {
            throw Violation("\(steps) presented \(presented), which the session does not know")
        }
    }

    /// Checks the tree and the snapshot round trip; returns the tree's ids.
    private static func checked(_ session: Session) throws(Violation) -> Set<String> {
        let tree = TreeCheck(session, limits: limits)
        if let first = tree.violations.first { throw first }
        let restored: Session
        do {
            restored = try Session(id: session.id, tokenDigest: session.tokenDigest, restoring: session.snapshot, limits: limits)
        } catch {
            throw Violation("a session at revision \(session.revision) does not restore from its snapshot: \(error)")
        }
        guard restored == session else {
            throw Violation("a session at revision \(session.revision) restores from its snapshot as a different one")
        }
        return tree.ids
    }
}
