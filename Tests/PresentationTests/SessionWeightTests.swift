import Foundation
import JSON
import Presentation
import Testing

import enum Presentation.Operation

/// `Limits.maxSessionBytes`: what a session's clients put in it is bounded in bytes, a change
/// past it is refused and changes nothing, and its events and outcomes are trimmed to it.
@Suite("Session weight")
struct SessionWeightTests {
    /// A screen `name` whose params hold `bytes` bytes of text in all.
    static func heavy(_ name: String, bytes: Int) -> ScreenSpec {
        // {"p":""} is 8 bytes of the params' text.
        Fixture.spec(name, params: object(("p", .string(String(repeating: "x", count: bytes - 8)))))
    }

    /// What a spec weighs: its name, title and params as the client gave them.
    static func weight(_ spec: ScreenSpec) -> Int {
        spec.name.utf8.count + (spec.title?.utf8.count ?? 0) + spec.paramsText.count
    }

    /// The root screen "home" with no params: 4 + 2 bytes.
    static let root = 6

    @Test("A change up to the limit is made; one byte past it is refused and changes nothing")
    func pushAtAndPastTheLimit() throws {
        let limits = Limits(maxSessionBytes: 1_000)
        var session = Fixture.session()
        let fits = Self.heavy("a", bytes: 1_000 - Self.root - 1)
        #expect(Self.weight(fits) == 1_000 - Self.root)
        try session.run(.push(fits), limits: limits)
        #expect(session.revision == 2)

        try session.run(.pop(result: nil), limits: limits)
        let before = session
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            try session.run(.push(Self.heavy("a", bytes: 1_000 - Self.root)), limits: limits)
        }
        #expect(session == before)
    }

    @Test("Titles, states and results weigh as params do")
    func everythingTheClientGaveCounts() throws {
        let limits = Limits(maxSessionBytes: 300)
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a", title: String(repeating: "t", count: 200))), limits: limits)
        try session.run(.push(Fixture.spec("b")), limits: limits)
        let before = session
        // 6 + 203 + 3 = 212: a state of 100 bytes (a name of 4, params of 96) is 12 too many.
        let state = try ScreenState(name: "full", paramsText: JSONText(object(("s", .string(String(repeating: "s", count: 88))))))
        #expect(state.paramsText.count == 96)
        #expect(throws: PresentationError.sessionTooLarge(limit: 300)) {
            try session.run(.setState(screen: nil, state: state, transition: .none), limits: limits)
        }
        #expect(session == before)
        // Popped, "b" leaves 209; a result for "a", a string of 36 bytes held in 24 + 32 + 36,
        // is one too many, and one of 35 fits.
        #expect(throws: PresentationError.sessionTooLarge(limit: 300)) {
            try session.run(.pop(result: .string(String(repeating: "r", count: 36))), limits: limits)
        }
        #expect(session == before)
        try session.run(.pop(result: .string(String(repeating: "r", count: 35))), limits: limits)
        #expect(session.root.path[1].result?.value == .string(String(repeating: "r", count: 35)))
    }

    @Test("A result weighs what it takes parsed: an array of digits, 25 bytes an item, not 2")
    func denseResults() throws {
        let limits = Limits(maxSessionBytes: 10_000)
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")), limits: limits)
        let before = session
        // 6 for "home" and 56 for the array: 397 items weigh 9,925 + 62 = 9,987, 398 too many.
        #expect(throws: PresentationError.sessionTooLarge(limit: 10_000)) {
            try session.run(.pop(result: .array(Array(repeating: .number("1"), count: 398))), limits: limits)
        }
        #expect(session == before)
        try session.run(.pop(result: .array(Array(repeating: .number("1"), count: 397))), limits: limits)
    }

    @Test("A session over its limit may still shrink, or change without growing, but not grow")
    func overTheLimitShrinks() throws {
        var session = Fixture.session()
        try session.run(.push(Self.heavy("a", bytes: 500)))
        try session.run(.push(Self.heavy("b", bytes: 500)))
        // The limit lowered under it, as a restart with a smaller --max-session-bytes does.
        let lowered = Limits(maxSessionBytes: 600)
        let over = session
        #expect(throws: PresentationError.sessionTooLarge(limit: 600)) {
            try session.run(.replace(Self.heavy("c", bytes: 501)), limits: lowered)
        }
        #expect(session == over)
        try session.run(.replace(Self.heavy("c", bytes: 500)), limits: lowered)
        try session.run(.replace(Self.heavy("d", bytes: 400)), limits: lowered)
        #expect(throws: PresentationError.sessionTooLarge(limit: 600)) {
            try session.run(.push(Fixture.spec("e")), limits: lowered)
        }
        try session.run(.pop(result: nil), limits: lowered)
        try session.run(.push(Fixture.spec("e")), limits: lowered)
        #expect(session.shape == [["home", "a", "e"]])
    }

    @Test("A batch is weighed as a whole: past the limit it is refused whole, and a batch that ends under it is made")
    func batches() throws {
        let limits = Limits(maxSessionBytes: 1_000)
        var session = Fixture.session()
        let before = session
        let pushes = [Step(operation: .push(Self.heavy("a", bytes: 500))), Step(operation: .push(Self.heavy("b", bytes: 500)))]
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            try session.apply(pushes, at: Fixture.time(of: 2), limits: limits)
        }
        #expect(session == before)
        // It passes the limit on the way, and ends under it.
        _ = try session.apply(pushes + [Step(operation: .pop(result: nil))], at: Fixture.time(of: 2), limits: limits)
        #expect(session.shape == [["home", "a"]])
    }

    @Test("A presented screen weighs as a pushed one, in any stack")
    func presentations() throws {
        let limits = Limits(maxSessionBytes: 1_000)
        var session = Fixture.session()
        try session.run(.push(Self.heavy("a", bytes: 600)), limits: limits)
        let before = session
        let sheet = try PresentationRequest(style: .sheet, content: .screen(Self.heavy("s", bytes: 400), navigation: true))
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            try session.run(.present(sheet), limits: limits)
        }
        #expect(session == before)
        try session.run(Fixture.modal("m"), limits: limits)
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            try session.run(.push(Self.heavy("b", bytes: 400)), limits: limits)
        }
    }

    @Test("An alert's texts weigh as a screen's do: an alert past the limit is refused, and so is its import")
    func alerts() throws {
        let limits = Limits(maxSessionBytes: 1_000)
        var session = Fixture.session()
        let before = session
        // Nothing else bounds an alert's title, message and buttons but the body's size (1 MiB).
        let text = String(repeating: "m", count: 1_000)
        let heavy = try Alert(title: "t", message: text, actions: [AlertAction(id: "ok", title: "OK")])
        let alert = Operation.present(try PresentationRequest(style: .alert, content: .alert(heavy)))
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) { try session.run(alert, limits: limits) }
        #expect(session == before)
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            _ = try session.apply(
                [Step(operation: .push(Fixture.spec("a"))), Step(operation: .pop(result: nil)), Step(operation: alert)],
                at: Fixture.time(of: 2), limits: limits)
        }
        #expect(session == before)
        try session.run(alert)
        #expect(throws: PresentationError.sessionTooLarge(limit: 1_000)) {
            try ImportedSession(checking: session.snapshot, limits: limits)
        }
    }

    @Test("Events are trimmed to the limit in bytes, oldest revisions first, the newest kept whole")
    func eventsTrimmedByBytes() throws {
        let limits = Limits(maxSessionBytes: 2_000)
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")), limits: limits)
        let value = JSONValue.string(String(repeating: "v", count: 700))
        for _ in 0..<2 {
            try session.run(.pop(result: value), limits: limits)
            try session.run(.push(Fixture.spec("a")), limits: limits)
        }
        // Revisions 3 and 5 each carry one 700-byte result: both fit in 2,000 bytes.
        #expect(try session.events(after: 0).map(\.revision) == [1, 2, 3, 3, 4, 5, 5, 6])
        try session.run(.pop(result: value), limits: limits)
        // A third would not: revisions up to 3 go, so that those after them are whole.
        #expect(session.keptEvents.map(\.revision) == [4, 5, 5, 6, 7, 7])
        #expect(throws: PresentationError.historyExpired(oldest: 3)) { try session.events(after: 2) }
        #expect(try session.events(after: 3).count == 6)
        // One revision heavier than the limit is kept whole, until the next change drops it:
        // three pops of a batch, each with a result of 900 bytes.
        for name in ["a", "b", "c"] { try session.run(.push(Fixture.spec(name)), limits: limits) }
        let pops = Array(repeating: Step(operation: .pop(result: .string(String(repeating: "w", count: 898)))), count: 3)
        _ = try session.apply(pops, at: Fixture.time(of: session.revision + 1), limits: limits)
        let heavy = session.revision
        #expect(session.keptEvents.map(\.revision) == Array(repeating: heavy, count: 6))
        try session.run(.push(Fixture.spec("a")), limits: limits)
        #expect(session.keptEvents.map(\.revision) == [heavy + 1])
    }

    @Test("Outcomes are forgotten past the limit in bytes of results, oldest first, the newest kept")
    func outcomesTrimmedByBytes() throws {
        let limits = Limits(maxSessionBytes: 2_000)
        var session = Fixture.session()
        let value = JSONValue.string(String(repeating: "v", count: 898))
        var presented: [PresentationID] = []
        for _ in 0..<3 {
            let change = try session.run(Fixture.modal("m"), limits: limits)
            presented.append(try #require(change.presented))
            try session.run(.dismiss(presentation: nil, result: value), limits: limits)
        }
        // 900 bytes each: the third outcome makes the first go.
        #expect(session.keptOutcomes.map(\.id) == Array(presented.suffix(2)))
        #expect(throws: PresentationError.outcomeNotKept(presented[0])) { try session.outcome(of: presented[0]) }
        // Outcomes without a result weigh nothing.
        try session.run(Fixture.modal("m"), limits: limits)
        try session.run(.dismiss(presentation: nil, result: nil), limits: limits)
        #expect(session.keptOutcomes.count == 3)
    }

    @Test("An import heavier than the limit is refused; a session read back from disk is not")
    func importsAndRestores() throws {
        var session = Fixture.session()
        try session.run(.push(Self.heavy("a", bytes: 900)))
        let snapshot = session.snapshot
        let lowered = Limits(maxSessionBytes: 900)
        #expect(throws: PresentationError.sessionTooLarge(limit: 900)) {
            try ImportedSession(checking: snapshot, limits: lowered)
        }
        _ = try ImportedSession(checking: snapshot, limits: Limits(maxSessionBytes: 907))
        let restored = try Session(
            id: Fixture.sessionID, tokenDigest: SessionTokenDigest(of: Fixture.token), restoring: snapshot, limits: lowered)
        #expect(restored.snapshot.root == snapshot.root)
    }

    @Test("A new session whose root alone is past the limit is refused, and none is made")
    func creation() throws {
        let store = IDSequence.store(limits: Limits(maxSessionBytes: 500))
        #expect(throws: PresentationError.sessionTooLarge(limit: 500)) {
            try store.create(root: Self.heavy("a", bytes: 500), timeToLive: nil, now: Fixture.created)
        }
        #expect(store.sessions(after: nil, limit: 10).isEmpty)
        _ = try store.create(root: Self.heavy("a", bytes: 499), timeToLive: nil, now: Fixture.created)
        #expect(store.sessions(after: nil, limit: 10).count == 1)
    }
}
