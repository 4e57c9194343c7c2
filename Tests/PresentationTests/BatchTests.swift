import Foundation
import Presentation
import Testing

import enum Presentation.Operation

@Suite("Batches")
struct BatchTests {
    static let now = Fixture.time(of: 2)

    @Test("A batch is one revision with the events of all its steps")
    func oneRevision() throws {
        var session = Fixture.session()
        let steps = [
            Step(operation: .push(Fixture.spec("a"))),
            Step(operation: Fixture.modal("b"), expectedTop: screenID("s3")),
            Step(operation: .push(Fixture.spec("c"))),
        ]
        let change = try session.apply(steps, at: Self.now, limits: .default)
        #expect(change.revision == 2 && session.revision == 2)
        #expect(change.presented == presentationID("p4"))
        #expect(change.events.map(\.kind.name) == ["pushed", "presented", "pushed"])
        #expect(change.events.allSatisfy { $0.revision == 2 && $0.time == Self.now })
        #expect(try session.events(after: 1) == change.events)
        #expect(session.shape == [["home", "a"], ["b", "c"]])
    }

    @Test("A failing third step leaves the session exactly as it was and names index 2")
    func atomic() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        let before = session
        let steps = [
            Step(operation: .push(Fixture.spec("b"))),
            Step(operation: Fixture.modal("c")),
            Step(operation: .popTo(screenID("s2"))),
            Step(operation: .push(Fixture.spec("d"))),
        ]
        #expect(throws: PresentationError.batchStepFailed(index: 2, .screenNotInTopStack(screenID("s2")))) {
            try session.apply(steps, at: Self.now, limits: .default)
        }
        #expect(session == before)
        // The ids the failed batch would have used are still free: the counter did not move either.
        try session.run(.push(Fixture.spec("b")))
        #expect(session.top.screen == screenID("s4"))
    }

    @Test("A single failing step reports its own error, not a batch error")
    func singleStep() {
        var session = Fixture.session()
        #expect(throws: PresentationError.cannotPopRoot) {
            try session.apply([Step(operation: .popToRoot)], at: Self.now, limits: .default)
        }
    }

    @Test("Each step of a batch checks its expected top against the tree as the batch left it")
    func expectedTopInBatch() throws {
        var session = Fixture.session()
        let steps = [
            Step(operation: .push(Fixture.spec("a")), expectedTop: screenID("s2")),
            Step(operation: .push(Fixture.spec("b")), expectedTop: screenID("s2")),
        ]
        #expect(
            throws: PresentationError.batchStepFailed(
                index: 1, .topChanged(expected: screenID("s2"), actual: screenID("s3")))
        ) {
            try session.apply(steps, at: Self.now, limits: .default)
        }
        #expect(session.revision == 1)
    }

    @Test("An empty batch is refused")
    func empty() {
        var session = Fixture.session()
        #expect(throws: PresentationError.emptyBatch) { try session.apply([], at: Self.now, limits: .default) }
    }

    @Test("A batch longer than the limit is refused before any step runs")
    func tooLarge() throws {
        var session = Fixture.session()
        let limits = Limits(maxBatchSteps: 3)
        let push = Step(operation: .push(Fixture.spec("a")))
        #expect(throws: PresentationError.batchTooLarge(limit: 3)) {
            try session.apply(Array(repeating: push, count: 4), at: Self.now, limits: limits)
        }
        let change = try session.apply(Array(repeating: push, count: 3), at: Self.now, limits: limits)
        #expect(change.events.count == 3 && session.revision == 2)
    }

    @Test("A batch reports the last presentation it made")
    func lastPresented() throws {
        var session = Fixture.session()
        let change = try session.apply(
            [
                Step(operation: Fixture.modal("a")), Step(operation: Fixture.modal("b")),
                Step(operation: .push(Fixture.spec("c"))),
            ],
            at: Self.now, limits: .default)
        #expect(change.presented == presentationID("p6"))
    }

    @Test("A batch can present and dismiss in one revision")
    func presentAndDismiss() throws {
        var session = Fixture.session()
        let change = try session.apply(
            [Step(operation: Fixture.modal("a")), Step(operation: .dismiss(presentation: nil, result: .bool(true)))],
            at: Self.now, limits: .default)
        #expect(change.events.map(\.kind.name) == ["presented", "dismissed", "result"])
        #expect(session.screen(screenID("s2"))?.result?.revision == 2)
        #expect(try session.outcome(of: presentationID("p3")).status == .dismissed)
    }
}
