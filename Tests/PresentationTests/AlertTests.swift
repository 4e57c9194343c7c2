import Foundation
import JSON
import Presentation
import Testing

import enum Presentation.Operation

@Suite("Alerts")
struct AlertTests {
    /// A session whose home screen (s2) has alert p3 up.
    static func sessionWithAlert() throws -> Session {
        var session = Fixture.session()
        try session.run(Fixture.alert)
        return session
    }

    @Test("Presenting an alert puts it over the top screen without a stack")
    func present() throws {
        var session = Fixture.session()
        let change = try session.run(Fixture.alert)
        #expect(change.presented == presentationID("p3"))
        #expect(
            change.events.map(\.kind) == [
                .presented(presentationID("p3"), style: .alert, by: screenID("s2"), stack: nil, screen: nil)
            ])
        #expect(
            session.top
                == Top(stack: stackID("k1"), screen: screenID("s2"), presentation: nil, alert: presentationID("p3")))
        #expect(session.root.presentation?.content == .alert(Fixture.alertBody))
        expectValidTree(session)
    }

    @Test(
        "Everything but dismissing and setting the root is blocked while an alert is up",
        arguments: [
            Operation.push(Fixture.spec("a")), .pop(result: nil), .popToRoot, .popTo(screenID("s2")),
            .replace(Fixture.spec("a")), Fixture.modal("a"), Fixture.alert,
            .emit(presentation: nil, result: .string("a")), .emit(presentation: presentationID("p3"), result: .null),
            .setState(screen: nil, state: try! ScreenState(name: "loaded"), transition: .automatic),
        ])
    func blocked(operation: Operation) throws {
        var session = try Self.sessionWithAlert()
        let before = session
        #expect(throws: PresentationError.blockedByAlert(presentationID("p3"))) { try session.run(operation) }
        #expect(session == before)
    }

    @Test("Answering with a known action delivers the answer to the presenting screen")
    func answer() throws {
        var session = try Self.sessionWithAlert()
        let answer = object(("action", .string("ok")), ("fields", object(("reason", .string("typo")))))
        let change = try session.run(.dismiss(presentation: presentationID("p3"), result: answer))
        #expect(
            change.events.map(\.kind) == [
                .dismissed(presentationID("p3"), by: screenID("s2")),
                .result(to: screenID("s2"), from: .presentation(presentationID("p3")), value: answer),
            ])
        #expect(session.top.alert == nil)
        #expect(session.screen(screenID("s2"))?.result?.value == answer)
        #expect(try session.outcome(of: presentationID("p3")).result == answer)
    }

    @Test("Dismissing an alert without a result cancels it")
    func cancel() throws {
        var session = try Self.sessionWithAlert()
        try session.run(.dismiss(presentation: nil, result: nil))
        #expect(try session.outcome(of: presentationID("p3")).status == .cancelled)
        try session.run(.push(Fixture.spec("a")))
    }

    @Test("An answer naming an action the alert does not have is refused")
    func unknownAction() throws {
        var session = try Self.sessionWithAlert()
        let before = session
        #expect(throws: PresentationError.unknownAlertAction("delete")) {
            try session.run(.dismiss(presentation: nil, result: object(("action", .string("delete")))))
        }
        #expect(session == before)
    }

    /// Actions and fields are both looked up by id; an answer's action must be one of the
    /// actions, so a field's id ("reason") is no action even though the alert knows it.
    @Test("An answer naming a field's id as its action is refused")
    func fieldIDIsNoAction() throws {
        var session = try Self.sessionWithAlert()
        let before = session
        #expect(throws: PresentationError.unknownAlertAction("reason")) {
            try session.run(.dismiss(presentation: nil, result: object(("action", .string("reason")))))
        }
        #expect(session == before)
    }

    @Test(
        "An answer of the wrong shape is refused",
        arguments: [
            JSONValue.string("ok"), .null, .array([.string("ok")]), object(), object(("action", .number("1"))),
            object(("action", .string("ok")), ("extra", .bool(true))),
            object(("action", .string("ok")), ("fields", .array([]))),
            object(("action", .string("ok")), ("fields", object(("unknown", .string("x"))))),
            object(("action", .string("ok")), ("fields", object(("reason", .number("3"))))),
        ])
    func invalidAnswer(answer: JSONValue) throws {
        var session = try Self.sessionWithAlert()
        let before = session
        #expect {
            try session.run(.dismiss(presentation: nil, result: answer))
        } throws: { error in
            guard case PresentationError.invalidAlertResult = error else { return false }
            return true
        }
        #expect(session == before)
    }

    @Test("An answer may leave out fields, give none, or give them as null")
    func fieldsOptional() throws {
        for fields in [nil, object(), JSONValue.null] {
            var session = try Self.sessionWithAlert()
            let answer = fields.map { object(("action", .string("cancel")), ("fields", $0)) }
                ?? object(("action", .string("cancel")))
            try session.run(.dismiss(presentation: nil, result: answer))
            #expect(try session.outcome(of: presentationID("p3")).status == .dismissed, "\(String(describing: fields))")
        }
    }

    @Test("An alert swept away by dismissing the presentation under it is cancelled, not checked")
    func sweptAlert() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("a"))  // p3 k4 s5
        try session.run(Fixture.alert)  // p6
        try session.run(.dismiss(presentation: presentationID("p3"), result: .string("any value")))
        #expect(try session.outcome(of: presentationID("p6")).status == .cancelled)
        #expect(try session.outcome(of: presentationID("p3")).result == .string("any value"))
    }
}
