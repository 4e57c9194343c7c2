import Foundation
import JSON
import Presentation
import SessionChecks
import Testing

import enum Presentation.Operation

@Suite("Invariants over long sequences")
struct InvariantTests {
    /// Any operation, valid or not, with ids drawn from the ones the session has used (and a few it has not).
    static func randomOperation(_ session: Session, using random: inout SplitMix64) -> Operation {
        let maxID = session.revision * 3 + 3
        let someScreen = screenID("s\(Int.random(in: 1...maxID, using: &random))")
        let somePresentation = presentationID("p\(Int.random(in: 1...maxID, using: &random))")
        let result: JSONValue? = Bool.random(using: &random) ? nil : .number("\(session.revision)")
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<6: return .push(Fixture.spec("screen"))
        case 6..<9: return .pop(result: result)
        case 9: return .popToRoot
        case 10: return .popTo(Bool.random(using: &random) ? session.root.path[0].id : someScreen)
        case 11: return .replace(Fixture.spec("replacement"))
        case 12..<14:
            let style = PresentationStyle.allCases.filter { $0 != .alert }.randomElement(using: &random)!
            return Fixture.modal("presented", style: style, navigation: Bool.random(using: &random))
        case 14: return Fixture.alert
        case 15:
            return .dismiss(
                presentation: nil, result: Bool.random(using: &random) ? nil : object(("action", .string("ok"))))
        case 16..<18: return .dismiss(presentation: somePresentation, result: result)
        case 18: return .setRoot(Fixture.spec("root"))
        default: return .pop(result: nil)
        }
    }

    @Test(
        "Every step either succeeds with one new revision or changes nothing, and the tree stays valid",
        arguments: [1, 2, 3, 42] as [UInt64])
    func longSequence(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        var session = Fixture.session()
        var everSeen = expectValidTree(session)
        var current = everSeen
        let limits = Limits(maxStackLength: 6, maxPresentationDepth: 4, eventsKept: 64, outcomesKept: 16)
        var successes = 0
        for _ in 0..<3000 {
            let before = session
            let operation = Self.randomOperation(session, using: &random)
            let from: ScreenID? = Int.random(in: 0..<10, using: &random) == 0 ? screenID("s1") : nil
            do {
                let change = try session.run(operation, from: from, limits: limits)
                successes += 1
                #expect(change.revision == before.revision + 1 && session.revision == change.revision)
                #expect(!change.events.isEmpty)
                let now = expectValidTree(session)
                let fresh = now.subtracting(current)
                #expect(fresh.isDisjoint(with: everSeen), "ids reused: \(fresh.intersection(everSeen))")
                everSeen.formUnion(now)
                current = now
            } catch {
                #expect(session == before, "\(operation) failed with \(error) but changed the session")
            }
        }
        #expect(session.revision == 1 + successes)
        #expect(successes > 500)
    }
}
