import Foundation
import JSON
import Presentation
import SessionChecks
import Testing

import enum Presentation.Operation

/// Fixed values and shorthands so that tests read as the tree they build and assert exact ids.
enum Fixture {
    static let sessionID = SessionID(rawValue: "AAAAAAAAAAAAAAAAAAAAAA")!
    static let token = SessionToken(rawValue: String(repeating: "t", count: 43))!
    static let created = Date(timeIntervalSince1970: 1_800_000_000)

    /// The time used for the change that makes `revision`, so event times are predictable.
    static func time(of revision: Int) -> Date {
        created.addingTimeInterval(Double(revision - 1))
    }

    static func session(root: String = "home") -> Session {
        Session(id: sessionID, token: token, root: spec(root), now: created)
    }

    static func spec(_ name: String, title: String? = nil, params: JSONValue = .emptyObject) -> ScreenSpec {
        // Test names are always valid; a failure here is a broken fixture, not a behaviour under test.
        try! ScreenSpec(name: name, title: title, params: params)
    }

    static func modal(_ name: String, style: PresentationStyle = .modal, navigation: Bool = true) -> Operation {
        .present(try! PresentationRequest(style: style, content: .screen(spec(name), navigation: navigation)))
    }

    /// An alert with actions "ok" and "cancel" and a field "reason".
    static let alertBody = try! Alert(
        title: "Discard draft?",
        actions: [AlertAction(id: "ok", title: "OK"), AlertAction(id: "cancel", title: "Cancel", role: .cancel)],
        fields: [AlertField(id: "reason", placeholder: "Why?")]
    )

    static var alert: Operation {
        .present(try! PresentationRequest(style: .alert, content: .alert(alertBody)))
    }
}

func screenID(_ raw: String) -> ScreenID { ScreenID(rawValue: raw)! }
func stackID(_ raw: String) -> StackID { StackID(rawValue: raw)! }
func presentationID(_ raw: String) -> PresentationID { PresentationID(rawValue: raw)! }

/// `{"key": value, ...}` for short literals.
func object(_ members: (String, JSONValue)...) -> JSONValue {
    .object(members.map { JSONMember($0.0, $0.1) })
}

extension Session {
    /// Applies one operation as a one-step batch, at the time `Fixture` gives the next revision.
    @discardableResult
    mutating func run(_ operation: Operation, from: ScreenID? = nil, limits: Limits = .default)
        throws(PresentationError)
        -> Change
    {
        try apply([Step(operation: operation, expectedTop: from)], at: Fixture.time(of: revision + 1), limits: limits)
    }

    /// The screen names of every stack from the root up, for compact assertions about the tree's shape.
    var shape: [[String]] {
        stacks.map { $0.path.map(\.name) }
    }

    /// The stacks from the root up, following non-alert presentations.
    var stacks: [Stack] {
        var result = [root]
        while case .stack(let next, _)? = result.last?.presentation?.content {
            result.append(next)
        }
        return result
    }
}

/// Checks the invariants every session keeps (`TreeCheck`, shared with the fuzz target), and
/// returns the ids of everything in its tree.
@discardableResult
func expectValidTree(_ session: Session, sourceLocation: SourceLocation = #_sourceLocation) -> Set<String> {
    let check = TreeCheck(session)
    for violation in check.violations {
        Issue.record("\(violation)", sourceLocation: sourceLocation)
    }
    return check.ids
}
