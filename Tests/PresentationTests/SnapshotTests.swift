import Foundation
import Presentation
import Testing

@Suite("Restoring a session from a snapshot")
struct SnapshotTests {
    private static func restore(_ snapshot: Session.Snapshot, limits: Limits = .default) throws -> Session {
        try Session(id: Fixture.sessionID, tokenDigest: SessionTokenDigest(of: Fixture.token), restoring: snapshot, limits: limits)
    }

    private static func busy() throws -> Session {
        var session = Fixture.session()
        try session.run(.push(Fixture.spec("a")))
        try session.run(Fixture.modal("sheet", style: .sheet))
        try session.run(.dismiss(presentation: nil, result: .bool(true)))
        try session.run(Fixture.modal("cover", style: .fullScreen))
        try session.run(Fixture.alert)
        return session
    }

    @Test("A session's own snapshot restores to the same session")
    func roundTrip() throws {
        let session = try Self.busy()
        #expect(try Self.restore(session.snapshot) == session)
    }

    /// Past the few ids a session usually has, restoring keeps the numbers it has claimed in
    /// a set rather than a short list: both must catch a number used twice.
    @Test(
        "A session of many ids restores, and an id number used twice is refused wherever it is",
        arguments: [1, 20, 50])
    func manyIDs(reusedAt position: Int) throws {
        var session = Fixture.session()
        for index in 1..<60 { try session.run(.push(Fixture.spec("screen\(index)"))) }
        #expect(try Self.restore(session.snapshot) == session)
        var snapshot = session.snapshot
        var path = snapshot.root.path
        // The last screen, the 61st id claimed, takes the id of the one at `position`: claimed
        // while the list was short (1, 20) or after it had gone to the set (50).
        path[path.count - 1] = Screen(restoring: path[position].id, spec: Fixture.spec("again"), result: nil)
        snapshot.root = try Stack(restoring: snapshot.root.id, path: path, presentation: nil)
        #expect {
            try Self.restore(snapshot)
        } throws: { error in
            guard case PresentationError.invalidSnapshot(let reason) = error else { return false }
            return reason.contains("the id number of \(path[position].id) is used twice")
        }
    }

    /// Each breaks one invariant of a valid snapshot; the refusal must name it.
    static let breakages: [(reason: String, breakage: @Sendable (inout Session.Snapshot) -> Void)] = [
        ("revision must be 1", { $0.revision = 0 }),
        ("updatedAt is earlier", { $0.updatedAt = $0.createdAt.addingTimeInterval(-1) }),
        ("beyond lastIssuedID", { $0.lastIssuedID = 3 }),
        ("events must cover", { $0.events.removeAll { $0.revision == 3 } }),
        ("events must cover", { $0.revision -= 1 }),
        ("is not closed", { snapshot in
            snapshot.outcomes.append(
                PresentationOutcome(id: presentationID("p9"), style: .modal, presentedBy: screenID("s3"), status: .presented))
        }),
        ("only a dismissed presentation", { $0.outcomes[0].result = nil }),
        ("the top of its stack", { snapshot in
            snapshot.lastIssuedID += 1
            let extra = Screen(restoring: screenID("s\(snapshot.lastIssuedID)"), spec: Fixture.spec("x"), result: nil)
            snapshot.root = try! Stack(
                restoring: snapshot.root.id, path: snapshot.root.path + [extra], presentation: snapshot.root.presentation)
        }),
        ("used twice", { snapshot in
            var path = snapshot.root.path
            path[0] = Screen(restoring: screenID("s3"), spec: Fixture.spec("x"), result: nil)
            snapshot.root = try! Stack(restoring: snapshot.root.id, path: path, presentation: snapshot.root.presentation)
        }),
        // Screen ids the counter would never spell.
        misspelled("s0"), misspelled("s01"), misspelled("s"), misspelled("k3"), misspelled("x3"), misspelled("s+3"),
        misspelled("s3a"), misspelled("s 3"), misspelled("s٣"), misspelled("s1000000000000000000"),
    ]

    /// The root stack's first screen under the id `spelling`.
    static func misspelled(_ spelling: String) -> (reason: String, breakage: @Sendable (inout Session.Snapshot) -> Void) {
        ("is not an id this server issues", { snapshot in
            var path = snapshot.root.path
            path[0] = Screen(restoring: screenID(spelling), spec: Fixture.spec("x"), result: nil)
            snapshot.root = try! Stack(restoring: snapshot.root.id, path: path, presentation: snapshot.root.presentation)
        })
    }

    @Test("A snapshot that breaks an invariant is refused, saying which", arguments: 0..<breakages.count)
    func refused(index: Int) throws {
        var snapshot = try Self.busy().snapshot
        Self.breakages[index].breakage(&snapshot)
        #expect {
            try Self.restore(snapshot)
        } throws: { error in
            guard case PresentationError.invalidSnapshot(let reason) = error else { return false }
            return reason.contains(Self.breakages[index].reason)
        }
    }

    /// A result names who handed it back, an id the counter issued. A source past the counter
    /// is an id it issues next: here the next present's, which then reported the value as one
    /// it had emitted (`lastEmitted`, its status's `emitted`) without emitting anything.
    @Test("An import whose result names a source beyond lastIssuedID is refused; a stored one still restores")
    func resultFromUnissuedSource() throws {
        var snapshot = Fixture.session().snapshot
        let home = snapshot.root.path[0]
        let forged = DeliveredResult(source: .presentation(presentationID("p3")), value: .string("forged"), revision: 1)
        snapshot.root = try Stack(
            restoring: snapshot.root.id, path: [Screen(restoring: home.id, spec: Fixture.spec(home.name), result: forged)],
            presentation: nil)
        #expect {
            _ = try ImportedSession(checking: snapshot, limits: .default)
        } throws: { error in
            guard case PresentationError.invalidSnapshot(let reason) = error else { return false }
            return reason.contains("p3 is beyond lastIssuedID")
        }
        // What earlier servers imported and stored must still load: a refusal there refuses the whole file.
        var restored = try Self.restore(snapshot)
        try restored.run(Fixture.modal("sheet"))
        #expect(restored.lastEmitted(by: presentationID("p3")) == forged)
    }

    /// An import or a restart with a lower `outcomesKept` trims the outcomes as the operations
    /// would have: the oldest go, so `GET .../presentations/{id}` still answers for the latest.
    @Test("Restoring more outcomes than are kept keeps the newest")
    func outcomesTrimmedFromTheOldest() throws {
        var session = Fixture.session()
        for name in ["first", "second", "third"] {
            try session.run(Fixture.modal(name))
            try session.run(.dismiss(presentation: nil, result: .string(name)))
        }
        let all = session.keptOutcomes.map(\.id)
        #expect(all.count == 3)
        let restored = try Self.restore(session.snapshot, limits: Limits(outcomesKept: 2))
        #expect(restored.keptOutcomes.map(\.id) == Array(all.suffix(2)))
        #expect(try restored.outcome(of: all[2]).result == .string("third"))
        #expect(throws: PresentationError.outcomeNotKept(all[0])) { try restored.outcome(of: all[0]) }
    }

    @Test("The tree limits apply to a restored session")
    func limits() throws {
        let snapshot = try Self.busy().snapshot
        #expect(throws: PresentationError.self) { try Self.restore(snapshot, limits: Limits(maxPresentationDepth: 1)) }
        #expect(throws: PresentationError.self) { try Self.restore(snapshot, limits: Limits(maxStackLength: 1)) }
    }
}
