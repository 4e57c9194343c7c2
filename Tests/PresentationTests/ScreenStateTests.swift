import JSON
import Presentation
import Testing

import enum Presentation.Operation

/// A screen that shows one of its children by state (StateViewController), keeping its place.
@Suite("Screen states")
struct ScreenStateTests {
    static func state(_ name: String, _ params: JSONValue = .emptyObject) -> ScreenState {
        try! ScreenState(name: name, params: params)
    }

    @Test("A state goes on the top screen, which keeps its id, its place and its result")
    func setOnTop() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("order")))  // s3
        try session.run(.push(Fixture.spec("address")))  // s4
        try session.run(.pop(result: .string("home address")))
        #expect(session.screen(screenID("s3"))?.state == nil)

        let loading = Self.state("loading")
        let change = try session.run(.setState(screen: nil, state: loading, transition: .automatic))
        #expect(change.revision == 5)
        #expect(change.events.map(\.kind) == [.stateSet(screen: screenID("s3"), state: loading, transition: .automatic)])
        let loaded = Self.state("loaded", object(("items", .number("3"))))
        try session.run(.setState(screen: screenID("s3"), state: loaded, transition: .crossfade))
        let screen = try #require(session.screen(screenID("s3")))
        #expect(screen.state == loaded)
        #expect(screen.result?.value == .string("home address"))
        #expect(session.top.screen == screenID("s3"))
        #expect(session.shape == [["home", "order"]])
        expectValidTree(session)
    }

    @Test("A screen covered by a presentation changes state under it, and keeps it when uncovered")
    func setUnderPresentation() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("compose", style: .sheet))  // p3 k4 s5
        try session.run(.setState(screen: screenID("s2"), state: Self.state("loaded"), transition: .none))
        #expect(session.top.screen == screenID("s5"))
        try session.run(.dismiss(presentation: nil, result: .string("sent")))
        let home = try #require(session.screen(screenID("s2")))
        #expect(home.state == Self.state("loaded"))
        #expect(home.result?.value == .string("sent"))
        expectValidTree(session)
    }

    @Test("Handing a result to a screen with a state keeps the state, and the other way round")
    func resultAndStateApart() throws {
        var session = Fixture.session()
        try session.run(.setState(screen: nil, state: Self.state("empty"), transition: .automatic))
        try session.run(.push(Fixture.spec("pick")))
        try session.run(.pop(result: .number("1")))
        #expect(session.screen(screenID("s2"))?.state == Self.state("empty"))
        try session.run(.setState(screen: nil, state: Self.state("full"), transition: .automatic))
        #expect(session.screen(screenID("s2"))?.result?.value == .number("1"))
    }

    @Test("A replaced or popped screen's state goes with it; a new screen has none")
    func stateGoesWithScreen() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))  // s3
        try session.run(.setState(screen: nil, state: Self.state("x"), transition: .automatic))
        try session.run(.replace(Fixture.spec("b")))  // s4
        #expect(session.screen(screenID("s4"))?.state == nil)
        try session.run(.setState(screen: nil, state: Self.state("y"), transition: .automatic))
        try session.run(.pop(result: nil))
        try session.run(.push(Fixture.spec("c")))
        #expect(session.screen(screenID("s5"))?.state == nil)
    }

    @Test("A screen that is not in the tree is refused and nothing changes")
    func unknownScreen() throws {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(.pop(result: nil))
        let before = session
        for id in ["s3", "s99"] {
            #expect(throws: PresentationError.screenNotFound(screenID(id))) {
                try session.run(.setState(screen: screenID(id), state: Self.state("x"), transition: .automatic))
            }
        }
        #expect(session == before)
    }

    @Test("A state's name and params are checked")
    func validation() {
        #expect(throws: PresentationError.invalidState("the state name is empty")) { try ScreenState(name: "") }
        #expect(throws: PresentationError.invalidState("the state name is longer than 128 bytes")) {
            try ScreenState(name: String(repeating: "é", count: 65))
        }
        #expect(throws: PresentationError.invalidState("params must be a JSON object")) {
            try ScreenState(name: "x", params: .array([]))
        }
        #expect((try? ScreenState(name: String(repeating: "a", count: 128))) != nil)
    }

    @Test("A state survives a snapshot and a restore")
    func snapshotRoundTrip() throws {
        var session = Fixture.session()
        try session.run(Fixture.modal("sheet", style: .sheet))
        let loaded = Self.state("loaded", object(("n", .number("2"))))
        try session.run(.setState(screen: screenID("s2"), state: loaded, transition: .crossfade))
        let restored = try Session(
            id: Fixture.sessionID, tokenDigest: SessionTokenDigest(of: Fixture.token), restoring: session.snapshot,
            limits: .default)
        #expect(restored.screen(screenID("s2"))?.state == loaded)
        #expect(restored == session)
    }
}
