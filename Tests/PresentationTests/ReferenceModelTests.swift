import Foundation
import JSON
import Presentation
import SessionChecks
import Testing

import enum Presentation.Operation

@Suite("Session against a plain reference model")
struct ReferenceModelTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)
    static func time(of revision: Int) -> Date { created.addingTimeInterval(Double(revision - 1) * 0.25) }

    /// Everything a reader can see of `session`, checked against `model`.
    static func expectSame(
        _ session: Session, _ model: ReferenceModel, step: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let tree = ReferenceModel.flatten(session.root)
        #expect(tree.stacks == model.stacks, "step \(step): stacks", sourceLocation: sourceLocation)
        #expect(tree.presented == model.presented, "step \(step): presentations", sourceLocation: sourceLocation)
        #expect(session.revision == model.revision, "step \(step): revision", sourceLocation: sourceLocation)
        #expect(session.top == model.top, "step \(step): top", sourceLocation: sourceLocation)
        #expect(session.topmostScreen.id == ReferenceModel.s(model.topScreen.id), sourceLocation: sourceLocation)
        #expect(session.presentationCount == model.presented.count, sourceLocation: sourceLocation)
        #expect(session.topmostPresentation?.id == model.presented.last.map { ReferenceModel.p($0.id) }, sourceLocation: sourceLocation)
        #expect(session.lastIssuedID == model.lastID, "step \(step): id counter", sourceLocation: sourceLocation)
        #expect(session.updatedAt == time(of: model.revision), sourceLocation: sourceLocation)
        #expect(session.keptEvents == model.events, "step \(step): kept events", sourceLocation: sourceLocation)
        #expect(session.keptEventCount == model.events.count, sourceLocation: sourceLocation)
        #expect(session.eventsDroppedThrough == model.droppedThrough, "step \(step): dropped", sourceLocation: sourceLocation)
        let probes = Set([0, 1, model.droppedThrough - 1, model.droppedThrough, model.droppedThrough + 1, model.revision - 2,
            model.revision - 1, model.revision, model.revision + 1].filter { $0 >= 0 })
        for after in probes.sorted() {
            let actual = Result { () throws(PresentationError) in try session.events(after: after) }
            let expected = Result { () throws(PresentationError) in try model.events(after: after) }
            #expect(actual == expected, "step \(step): events after \(after)", sourceLocation: sourceLocation)
            let checked = Result { () throws(PresentationError) in try session.checkEventsKept(after: after) }
            #expect(checked.map { true } == expected.map { _ in true }, sourceLocation: sourceLocation)
        }
        #expect(session.keptOutcomes == model.outcomes, "step \(step): outcomes", sourceLocation: sourceLocation)
        for number in max(1, model.lastID - 24)...(model.lastID + 1) {
            let id = ReferenceModel.p(number)
            let actual = try? session.outcome(of: id)
            #expect(actual == model.outcome(of: id), "step \(step): outcome of \(id)", sourceLocation: sourceLocation)
            #expect(session.lastEmitted(by: id) == model.lastEmitted(by: id), "step \(step): emitted by \(id)", sourceLocation: sourceLocation)
        }
    }

    static func run(seed: UInt64, steps count: Int, limits: Limits) {
        var operations = ReferenceOperations(random: SplitMix64(state: seed))
        let root = operations.spec()
        let id = SessionID(rawValue: "AAAAAAAAAAAAAAAAAAAAAA")!
        var session = Session(id: id, token: SessionToken(rawValue: String(repeating: "t", count: 43))!, root: root, now: created)
        var model = ReferenceModel(root: root, limits: limits, now: created)
        expectSame(session, model, step: 0)
        // Copies taken along the way, checked again later: the copies share storage with the session.
        var kept: [(Session, ReferenceModel, Int)] = []
        for step in 1...count {
            let steps = operations.steps(model)
            let before = session
            let now = time(of: model.revision + 1)
            let expected = Result { () throws(PresentationError) in try model.apply(steps, at: now) }
            let actual = Result { () throws(PresentationError) in
                steps.count == 1 && operations.chance(50)
                    ? try session.apply(steps[0], at: now, limits: limits) : try session.apply(steps, at: now, limits: limits)
            }
            switch (actual, expected) {
            case (.success(let change), .success(let made)):
                #expect(change.revision == model.revision, "step \(step)")
                #expect(change.events == made.events, "step \(step): \(steps)")
                #expect(change.presented == made.presented, "step \(step)")
            case (.failure(let error), .failure(let refusal)):
                #expect(Self.same(error, refusal), "step \(step): \(steps)")
                #expect(session == before, "step \(step): a refused change left the session changed")
            default:
                Issue.record("step \(step): session \(actual), model \(expected) for \(steps)")
                return
            }
            expectSame(session, model, step: step)
            if step % 50 == 0 {
                let restored = try? Session(
                    id: session.id, tokenDigest: session.tokenDigest, restoring: session.snapshot, limits: limits)
                #expect(restored == session, "step \(step): a session restored from its snapshot differs")
            }
            if operations.chance(10) { kept.append((session, model, step)) }
            if kept.count > 8 { kept.removeFirst() }
            if operations.chance(5), let entry = kept.randomElement(using: &operations.random) {
                expectSame(entry.0, entry.1, step: entry.2)
            }
        }
    }

    /// Same refusal; free-text reasons (`invalidAlertResult`) are compared by kind only.
    static func same(_ left: PresentationError, _ right: PresentationError) -> Bool {
        switch (left, right) {
        case (.invalidAlertResult, .invalidAlertResult): true
        case (.batchStepFailed(let i, let l), .batchStepFailed(let j, let r)): i == j && same(l, r)
        default: left == right
        }
    }

    @Test("Random sequences match the model step by step", arguments: [1, 2, 3, 4] as [UInt64])
    func randomSequences(seed: UInt64) {
        let kept = [1, 17, 40, 128][Int(seed % 4)]
        Self.run(
            seed: seed, steps: 1000,
            limits: Limits(
                maxStackLength: [4, 8][Int(seed % 2)], maxPresentationDepth: 3, maxBatchSteps: 4, eventsKept: kept,
                outcomesKept: 5))
    }
}
