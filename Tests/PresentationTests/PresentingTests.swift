import Foundation
import Presentation
import Testing

import enum Presentation.Operation

@Suite("Presenting and dismissing")
struct PresentingTests {
    @Test(
        "Presenting makes a new stack over the top screen and reports its id",
        arguments: [
            PresentationStyle.modal, .sheet, .fullScreen, .popover,
        ])
    func present(style: PresentationStyle) throws {
        var session = Fixture.session()
        let change = try session.run(Fixture.modal("compose", style: style))
        #expect(change.presented == presentationID("p3"))
        #expect(
            change.events.map(\.kind) == [
                .presented(presentationID("p3"), style: style, by: screenID("s2"), stack: stackID("k4"), screen: screenID("s5"))
            ])
        let presentation = try #require(session.root.presentation)
        #expect(presentation.id == presentationID("p3") && presentation.style == style)
        #expect(presentation.presentedBy == screenID("s2"))
        guard case .stack(let stack, navigation: true) = presentation.content else {
            Issue.record("expected a navigable stack, got \(presentation.content)")
            return
        }
        #expect(stack.id == stackID("k4") && stack.path.map(\.id) == [screenID("s5")])
        #expect(
            session.top
                == Top(stack: stackID("k4"), screen: screenID("s5"), presentation: presentationID("p3"), alert: nil))
        #expect(try session.outcome(of: presentationID("p3")).status == .presented)
        expectValidTree(session)
    }

    @Test("Operations act on the topmost stack, leaving the stacks below alone")
    func operationsActOnTopmost() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("list")))
        try session.run(Fixture.modal("compose"))
        try session.run(.push(Fixture.spec("attach")))
        try session.run(.replace(Fixture.spec("attach2")))
        try session.run(.push(Fixture.spec("preview")))
        #expect(session.shape == [["home", "list"], ["compose", "attach2", "preview"]])
        try session.run(.popToRoot)
        #expect(session.shape == [["home", "list"], ["compose"]])
        #expect(throws: PresentationError.cannotPopRoot) { try session.run(.pop(result: nil)) }
        expectValidTree(session)
    }

    @Test("A presented stack without navigation refuses pushes but allows replacing")
    func navigationDisabled() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("picker", navigation: false))
        let before = session
        #expect(throws: PresentationError.navigationDisabled(stackID("k4"))) {
            try session.run(.push(Fixture.spec("more")))
        }
        #expect(session == before)
        try session.run(.replace(Fixture.spec("picker2")))
        #expect(session.shape == [["home"], ["picker2"]])
        guard case .stack(_, navigation: false)? = session.root.presentation?.content else {
            Issue.record("navigation flag lost")
            return
        }
    }

    @Test("Dismissing without a result cancels the topmost presentation")
    func dismissCancels() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("compose"))
        let change = try session.run(.dismiss(presentation: nil, result: nil))
        #expect(change.events.map(\.kind) == [.cancelled(presentationID("p3"), by: screenID("s2"))])
        #expect(session.root.presentation == nil)
        #expect(session.screen(screenID("s2"))?.result == nil)
        #expect(
            try session.outcome(of: presentationID("p3"))
                == PresentationOutcome(
                    id: presentationID("p3"), style: .modal, presentedBy: screenID("s2"), status: .cancelled))
    }

    @Test("Dismissing with a result delivers it to the presenting screen")
    func dismissWithResult() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("list")))
        try session.run(Fixture.modal("compose", style: .sheet))
        try session.run(.push(Fixture.spec("to")))
        let value = object(("sent", .bool(true)))
        let change = try session.run(.dismiss(presentation: nil, result: value))
        #expect(
            change.events.map(\.kind) == [
                .dismissed(presentationID("p4"), by: screenID("s3")),
                .result(to: screenID("s3"), from: .presentation(presentationID("p4")), value: value),
            ])
        #expect(
            session.screen(screenID("s3"))?.result
                == DeliveredResult(source: .presentation(presentationID("p4")), value: value, revision: 5))
        #expect(
            try session.outcome(of: presentationID("p4"))
                == PresentationOutcome(
                    id: presentationID("p4"), style: .sheet, presentedBy: screenID("s3"), status: .dismissed,
                    result: value))
        #expect(session.shape == [["home", "list"]])
    }

    @Test("Dismissing when nothing is presented is refused")
    func nothingPresented() {
        var session = Fixture.session()
        #expect(throws: PresentationError.nothingPresented) {
            try session.run(.dismiss(presentation: nil, result: nil))
        }
    }

    @Test("Dismissing a middle presentation sweeps those above it in one revision")
    func dismissMiddle() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))  // p3 k4 s5
        try session.run(Fixture.modal("b"))  // p6 k7 s8
        try session.run(Fixture.modal("c"))  // p9 k10 s11
        try session.run(Fixture.alert)  // p12
        #expect(session.shape == [["home"], ["a"], ["b"], ["c"]])
        let change = try session.run(.dismiss(presentation: presentationID("p6"), result: .string("done")))
        #expect(change.revision == 6 && session.revision == 6)
        #expect(
            change.events.map(\.kind) == [
                .cancelled(presentationID("p12"), by: screenID("s11")),
                .cancelled(presentationID("p9"), by: screenID("s8")),
                .dismissed(presentationID("p6"), by: screenID("s5")),
                .result(to: screenID("s5"), from: .presentation(presentationID("p6")), value: .string("done")),
            ])
        #expect(session.shape == [["home"], ["a"]])
        #expect(try session.outcome(of: presentationID("p12")).status == .cancelled)
        #expect(try session.outcome(of: presentationID("p9")).status == .cancelled)
        #expect(try session.outcome(of: presentationID("p6")).status == .dismissed)
        #expect(try session.outcome(of: presentationID("p3")).status == .presented)
        expectValidTree(session)
    }

    @Test("Dismissing a presentation that is not open is refused")
    func dismissUnknown() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))
        try session.run(.dismiss(presentation: nil, result: nil))
        try session.run(Fixture.modal("b"))
        let before = session
        for id in ["p3", "p99", "s2"] {
            #expect(throws: PresentationError.presentationNotFound(presentationID(id))) {
                try session.run(.dismiss(presentation: presentationID(id), result: nil))
            }
        }
        #expect(session == before)
    }

    @Test("Setting the root cancels every open presentation, from the top down")
    func setRootCancels() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))  // p3 k4 s5
        try session.run(Fixture.modal("b"))  // p6 k7 s8
        try session.run(Fixture.alert)  // p9
        let change = try session.run(.setRoot(Fixture.spec("login")))
        #expect(
            change.events.map(\.kind) == [
                .cancelled(presentationID("p9"), by: screenID("s8")),
                .cancelled(presentationID("p6"), by: screenID("s5")),
                .cancelled(presentationID("p3"), by: screenID("s2")),
                .rootSet(screen: screenID("s11"), stack: stackID("k10")),
            ])
        #expect(session.shape == [["login"]])
        #expect(session.root.presentation == nil)
        for id in ["p3", "p6", "p9"] {
            #expect(try session.outcome(of: presentationID(id)).status == .cancelled)
        }
    }

    @Test("Presenting past the depth limit is refused")
    func presentationsTooDeep() throws {
        var session = Fixture.session()
        let limits = Limits(maxPresentationDepth: 2)
        try session.run(Fixture.modal("a"), limits: limits)
        try session.run(Fixture.modal("b"), limits: limits)
        let before = session
        #expect(throws: PresentationError.presentationsTooDeep(limit: 2)) {
            try session.run(Fixture.modal("c"), limits: limits)
        }
        #expect(throws: PresentationError.presentationsTooDeep(limit: 2)) {
            try session.run(Fixture.alert, limits: limits)
        }
        #expect(session == before)
    }

    @Test("Ids of closed presentations and popped screens are never issued again")
    func idsNeverReused() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))
        try session.run(.dismiss(presentation: nil, result: nil))
        try session.run(Fixture.modal("a"))
        #expect(
            session.top
                == Top(stack: stackID("k7"), screen: screenID("s8"), presentation: presentationID("p6"), alert: nil))
    }

    @Test("The outcome of an unknown presentation is not found")
    func unknownOutcome() {
        let session = Fixture.session()
        #expect(throws: PresentationError.outcomeNotKept(presentationID("p1"))) {
            try session.outcome(of: presentationID("p1"))
        }
    }

    @Test("Only the most recent outcomes are remembered")
    func outcomesBounded() throws {
        var session = Fixture.session()
        let limits = Limits(outcomesKept: 2)
        for _ in 0..<3 {
            try session.run(Fixture.modal("a"), limits: limits)
            try session.run(.dismiss(presentation: nil, result: nil), limits: limits)
        }
        // p3, p6, p9 were closed in that order; only the last two are kept.
        #expect(throws: PresentationError.outcomeNotKept(presentationID("p3"))) {
            try session.outcome(of: presentationID("p3"))
        }
        #expect(try session.outcome(of: presentationID("p6")).status == .cancelled)
        #expect(try session.outcome(of: presentationID("p9")).status == .cancelled)
    }

    @Test("The topmost presentation and the count follow presents and dismisses, an alert included")
    func topmostPresentation() throws {
        var session = Fixture.session()
        #expect(session.topmostPresentation == nil && session.presentationCount == 0)
        try session.run(Fixture.modal("compose", style: .sheet))
        try session.run(.push(Fixture.spec("details")))
        try session.run(Fixture.modal("picker"))
        // The one presented last, holding the topmost stack as it now is, as `root` nests it.
        var nested = session.root.presentation
        while case .stack(let stack, _)? = nested?.content, let inner = stack.presentation { nested = inner }
        #expect(session.topmostPresentation == nested)
        #expect(session.topmostPresentation?.id == session.top.presentation && session.presentationCount == 2)

        try session.run(Fixture.alert)
        guard case .alert(let alert)? = session.topmostPresentation?.content else {
            Issue.record("expected the alert on top, got \(String(describing: session.topmostPresentation))")
            return
        }
        #expect(alert == Fixture.alertBody && session.topmostPresentation?.id == session.top.alert)
        #expect(session.presentationCount == 3)

        try session.run(.dismiss(presentation: nil, result: nil))
        #expect(session.topmostPresentation == nested && session.presentationCount == 2)
        try session.run(.dismiss(presentation: session.root.presentation?.id, result: nil))
        #expect(session.topmostPresentation == nil && session.presentationCount == 0)
    }
}
