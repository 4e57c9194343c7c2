import Foundation
import Presentation
import Testing

import enum Presentation.Operation

@Suite("Navigation within the topmost stack")
struct NavigationTests {
    @Test("A new session has one root screen at revision 1, recorded as root-set")
    func newSession() throws {
        let session = Fixture.session()
        #expect(session.revision == 1)
        #expect(session.createdAt == Fixture.created && session.updatedAt == Fixture.created)
        #expect(session.root.id == stackID("k1"))
        #expect(session.root.path.map(\.id) == [screenID("s2")])
        #expect(session.top == Top(stack: stackID("k1"), screen: screenID("s2"), presentation: nil, alert: nil))
        #expect(
            try session.events(after: 0) == [
                Event(revision: 1, time: Fixture.created, kind: .rootSet(screen: screenID("s2"), stack: stackID("k1")))
            ])
    }

    @Test("Pushing appends a screen with a new id and bumps the revision by one")
    func push() throws {
        var session = Fixture.session()
        let spec = Fixture.spec("detail", title: "Detail", params: object(("id", .number("7"))))
        let change = try session.run(.push(spec))
        #expect(change.revision == 2 && session.revision == 2)
        #expect(session.updatedAt == Fixture.time(of: 2))
        #expect(change.presented == nil)
        #expect(change.events.map(\.kind) == [.pushed(screen: screenID("s3"), stack: stackID("k1"))])
        #expect(change.events.allSatisfy { $0.revision == 2 && $0.time == Fixture.time(of: 2) })
        let top = try #require(session.screen(screenID("s3")))
        #expect(top.name == "detail" && top.title == "Detail" && top.params == object(("id", .number("7"))))
        #expect(top.result == nil)
        #expect(session.top.screen == screenID("s3"))
        expectValidTree(session)
    }

    @Test("Popping removes the top screen")
    func pop() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        let change = try session.run(.pop(result: nil))
        #expect(change.events.map(\.kind) == [.popped(screens: [screenID("s3")], stack: stackID("k1"))])
        #expect(session.shape == [["home"]])
        #expect(session.screen(screenID("s3")) == nil)
        #expect(session.screen(screenID("s2"))?.result == nil)
    }

    @Test("Popping with a result hands it to the screen uncovered")
    func popWithResult() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(.push(Fixture.spec("b")))
        let value = object(("picked", .string("blue")))
        let change = try session.run(.pop(result: value))
        #expect(
            change.events.map(\.kind) == [
                .popped(screens: [screenID("s4")], stack: stackID("k1")),
                .result(to: screenID("s3"), from: .screen(screenID("s4")), value: value),
            ])
        let delivered = DeliveredResult(source: .screen(screenID("s4")), value: value, revision: 4)
        #expect(session.screen(screenID("s3"))?.result == delivered)
        #expect(session.screen(screenID("s2"))?.result == nil)
    }

    @Test("A later result replaces the earlier one")
    func laterResultWins() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(.pop(result: .number("1")))
        try session.run(.push(Fixture.spec("b")))
        try session.run(.pop(result: .number("2")))
        #expect(
            session.screen(screenID("s2"))?.result
                == DeliveredResult(source: .screen(screenID("s4")), value: .number("2"), revision: 5))
    }

    @Test(
        "Popping the root screen is refused", arguments: [Operation.pop(result: nil), .pop(result: .null), .popToRoot])
    func popRoot(operation: Operation) {
        var session = Fixture.session()
        let before = session
        #expect(throws: PresentationError.cannotPopRoot) { try session.run(operation) }
        #expect(session == before)
    }

    @Test("Popping to the root keeps only the first screen and reports the rest bottom first")
    func popToRoot() throws {
        var session = Fixture.session()
        for name in ["a", "b", "c"] { try session.run(.push(Fixture.spec(name))) }
        let change = try session.run(.popToRoot)
        #expect(
            change.events.map(\.kind) == [
                .popped(screens: [screenID("s3"), screenID("s4"), screenID("s5")], stack: stackID("k1"))
            ])
        #expect(session.shape == [["home"]])
    }

    @Test("Popping to a screen removes the screens above it")
    func popTo() throws {
        var session = Fixture.session()
        for name in ["a", "b", "c"] { try session.run(.push(Fixture.spec(name))) }
        let change = try session.run(.popTo(screenID("s3")))
        #expect(
            change.events.map(\.kind) == [.popped(screens: [screenID("s4"), screenID("s5")], stack: stackID("k1"))])
        #expect(session.shape == [["home", "a"]])
    }

    @Test("Popping to a screen is refused when it is the top, missing, or below the topmost stack")
    func popToRefusals() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(Fixture.modal("sheet"))
        let before = session
        #expect(throws: PresentationError.alreadyOnTop(screenID("s6"))) { try session.run(.popTo(screenID("s6"))) }
        #expect(throws: PresentationError.screenNotFound(screenID("s99"))) { try session.run(.popTo(screenID("s99"))) }
        #expect(throws: PresentationError.screenNotInTopStack(screenID("s2"))) {
            try session.run(.popTo(screenID("s2")))
        }
        #expect(session == before)
    }

    @Test("Replacing swaps the top screen for one with a new id")
    func replace() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        let change = try session.run(.replace(Fixture.spec("b")))
        #expect(
            change.events.map(\.kind) == [.replaced(old: screenID("s3"), new: screenID("s4"), stack: stackID("k1"))])
        #expect(session.root.path.map(\.id) == [screenID("s2"), screenID("s4")])
        #expect(session.shape == [["home", "b"]])
    }

    @Test("The root screen can be replaced")
    func replaceRoot() throws {
        var session = Fixture.session()
        try session.run(.replace(Fixture.spec("login")))
        #expect(session.root.path.map(\.id) == [screenID("s3")])
        #expect(session.root.id == stackID("k1"))
    }

    @Test("Pushing past the stack length limit is refused")
    func stackTooLong() throws {
        var session = Fixture.session()
        let limits = Limits(maxStackLength: 3)
        try session.run(.push(Fixture.spec("a")), limits: limits)
        try session.run(.push(Fixture.spec("b")), limits: limits)
        let before = session
        #expect(throws: PresentationError.stackTooLong(limit: 3)) {
            try session.run(.push(Fixture.spec("c")), limits: limits)
        }
        #expect(session == before)
        #expect(session.root.path.count == 3)
    }

    @Test("A step meant for another top screen is refused, so a double tap pops once")
    func expectedTop() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(.push(Fixture.spec("b")))
        try session.run(.pop(result: nil), from: screenID("s4"))
        let before = session
        #expect(throws: PresentationError.topChanged(expected: screenID("s4"), actual: screenID("s3"))) {
            try session.run(.pop(result: nil), from: screenID("s4"))
        }
        #expect(session == before)
        try session.run(.pop(result: nil), from: screenID("s3"))
        #expect(session.shape == [["home"]])
    }

    @Test("Setting the root replaces the whole stack with a new one")
    func setRoot() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        let change = try session.run(.setRoot(Fixture.spec("login")))
        #expect(change.events.map(\.kind) == [.rootSet(screen: screenID("s5"), stack: stackID("k4"))])
        #expect(session.root.id == stackID("k4"))
        #expect(session.shape == [["login"]])
        #expect(session.screen(screenID("s2")) == nil)
    }

    @Test("The topmost screen is the last of the topmost stack, also in a presentation and under an alert")
    func topmostScreen() throws {
        var session = Fixture.session()
        #expect(session.topmostScreen.id == screenID("s2"))
        try session.run(.push(Fixture.spec("list")))
        try session.run(Fixture.modal("sheet"))
        try session.run(.push(Fixture.spec("detail", title: "Detail")))
        let top = session.topmostScreen
        #expect(top.name == "detail" && top.title == "Detail")
        #expect(top == session.screen(session.top.screen))
        try session.run(Fixture.alert)
        #expect(session.topmostScreen == top)
        try session.run(.dismiss(presentation: session.top.alert, result: nil))
        try session.run(.dismiss(presentation: session.top.presentation, result: nil))
        #expect(session.topmostScreen.name == "list" && session.topmostScreen == session.screen(session.top.screen))
    }
}
