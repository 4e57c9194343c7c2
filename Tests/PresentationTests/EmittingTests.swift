import JSON
import Presentation
import Testing

import enum Presentation.Operation

/// A presentation whose result is a stream of values: it hands each to its presenter and stays open.
@Suite("Emitting results from an open presentation")
struct EmittingTests {
    /// Home (s2) presents a filter sheet p3 (stack k4, screen s5).
    static func sessionWithSheet() throws -> Session {
        var session = Fixture.session()
        try session.run(Fixture.modal("filters", style: .sheet))
        return session
    }

    @Test("Each value goes to the presenting screen and the presentation stays open")
    func emitKeepsPresentation() throws {
        var session = try Self.sessionWithSheet()
        let first = object(("filter", .string("unread")))
        let change = try session.run(.emit(presentation: nil, result: first))
        #expect(change.revision == 3 && change.presented == nil)
        #expect(
            change.events.map(\.kind) == [
                .result(to: screenID("s2"), from: .presentation(presentationID("p3")), value: first)
            ])
        #expect(session.shape == [["home"], ["filters"]])
        #expect(try session.outcome(of: presentationID("p3")).status == .presented)
        #expect(
            session.screen(screenID("s2"))?.result
                == DeliveredResult(source: .presentation(presentationID("p3")), value: first, revision: 3))

        // The next value replaces the last; the sheet can go on navigating in between.
        try session.run(.push(Fixture.spec("more")))
        let second = object(("filter", .string("flagged")))
        try session.run(.emit(presentation: presentationID("p3"), result: second))
        #expect(
            session.screen(screenID("s2"))?.result
                == DeliveredResult(source: .presentation(presentationID("p3")), value: second, revision: 5))
        #expect(session.shape == [["home"], ["filters", "more"]])
        expectValidTree(session)
    }

    @Test("The stream ends with the dismiss: with a last value it is dismissed, without one cancelled")
    func dismissEndsStream() throws {
        for last in [nil, JSONValue.string("done")] {
            var session = try Self.sessionWithSheet()
            try session.run(.emit(presentation: nil, result: .number("1")))
            let change = try session.run(.dismiss(presentation: nil, result: last))
            let outcome = try session.outcome(of: presentationID("p3"))
            #expect(outcome.status == (last == nil ? .cancelled : .dismissed))
            #expect(outcome.result == last)
            // Without a last value the presenter keeps the one emitted before.
            let kept = last ?? .number("1")
            #expect(session.screen(screenID("s2"))?.result?.value == kept)
            #expect(change.events.count == (last == nil ? 1 : 2))
            expectValidTree(session)
        }
    }

    @Test("The last value an open presentation emitted is its presenter's result, and none once it closes")
    func lastEmitted() throws {
        var session = try Self.sessionWithSheet()
        #expect(session.lastEmitted(by: presentationID("p3")) == nil)
        try session.run(.emit(presentation: nil, result: .number("1")))
        try session.run(.emit(presentation: nil, result: .number("2")))
        // A presentation over the sheet emitting to the sheet's screen is not the sheet's value.
        try session.run(Fixture.modal("help"))  // p6, presented by s5
        try session.run(.emit(presentation: nil, result: .number("9")))
        #expect(
            session.lastEmitted(by: presentationID("p3"))
                == DeliveredResult(source: .presentation(presentationID("p3")), value: .number("2"), revision: 4))
        #expect(session.lastEmitted(by: presentationID("p6"))?.value == .number("9"))
        #expect(session.lastEmitted(by: presentationID("p99")) == nil)
        try session.run(.dismiss(presentation: presentationID("p3"), result: .number("3")))
        #expect(session.lastEmitted(by: presentationID("p3")) == nil)
        #expect(session.lastEmitted(by: presentationID("p6")) == nil)
    }

    @Test("A presentation cancelled after emitting still names its last value while its presenter holds it")
    func lastEmittedAfterCancel() throws {
        var session = try Self.sessionWithSheet()
        try session.run(.emit(presentation: nil, result: .number("1")))
        try session.run(.dismiss(presentation: nil, result: nil))
        let last = DeliveredResult(source: .presentation(presentationID("p3")), value: .number("1"), revision: 3)
        #expect(session.lastEmitted(by: presentationID("p3")) == last)
        // Another result handed to the presenter replaces it: nothing of p3's is held any more.
        try session.run(.push(Fixture.spec("detail")))
        try session.run(.pop(result: .number("2")))
        #expect(session.lastEmitted(by: presentationID("p3")) == nil)
    }

    @Test("A presentation under the topmost can emit, to the screen that presented it")
    func emitFromLower() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))  // p3 k4 s5
        try session.run(Fixture.modal("b"))  // p6 k7 s8
        try session.run(.emit(presentation: presentationID("p3"), result: .bool(true)))
        #expect(session.screen(screenID("s2"))?.result?.source == .presentation(presentationID("p3")))
        #expect(session.screen(screenID("s5"))?.result == nil)
        try session.run(.emit(presentation: nil, result: .bool(false)))
        #expect(session.screen(screenID("s5"))?.result?.source == .presentation(presentationID("p6")))
        #expect(session.shape == [["home"], ["a"], ["b"]])
        expectValidTree(session)
    }

    @Test("Emitting with nothing presented, or from a presentation that is not open, changes nothing")
    func emitRefused() throws {
        var session = Fixture.session()
        #expect(throws: PresentationError.nothingPresented) {
            try session.run(.emit(presentation: nil, result: .null))
        }
        try session.run(Fixture.modal("a"))
        try session.run(.dismiss(presentation: nil, result: nil))
        try session.run(Fixture.modal("b"))
        let before = session
        for id in ["p3", "p99"] {
            #expect(throws: PresentationError.presentationNotFound(presentationID(id))) {
                try session.run(.emit(presentation: presentationID(id), result: .null))
            }
        }
        #expect(session == before)
    }

    @Test("A refused emit in a batch undoes the steps before it")
    func emitInBatch() throws {
        var session = try Self.sessionWithSheet()
        let before = session
        #expect(throws: PresentationError.batchStepFailed(index: 1, .presentationNotFound(presentationID("p9")))) {
            try session.apply(
                [
                    Step(operation: .emit(presentation: nil, result: .string("kept?"))),
                    Step(operation: .emit(presentation: presentationID("p9"), result: .string("no"))),
                ], at: Fixture.time(of: 3), limits: .default)
        }
        #expect(session == before)
    }
}
