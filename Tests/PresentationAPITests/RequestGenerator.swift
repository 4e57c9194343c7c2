import Foundation
import JSON
@testable import MicroHTTP
import Presentation
@testable import PresentationAPI
import Synchronization
import SessionChecks
import Testing

/// Requests drawn at random against a session's current tree: every route that changes it,
/// valid and not, with `Prefer`, `If-Match` and `Idempotency-Key` now and then.
struct RequestGenerator {
    var random: SplitMix64
    /// How deep a value may nest, when values as deep as `--max-params-depth` allows are sent now and then.
    var deepValues: Int?

    func q(_ text: String) -> String { "\"\(text)\"" }

    /// Blanks between tokens now and then: the plain readers strip them, the parser skips them.
    mutating func gap() -> String { random.chance(20) ? random.pick([" ", "\n", "\t ", "  "]) : "" }

    mutating func object(_ members: [(String, String)]) -> String {
        var members = members
        if random.chance(30) { members.shuffle(using: &random) }
        let g = gap()
        return "{" + g + members.map { "\(q($0.0))\(g):\(g)\($0.1)" }.joined(separator: "," + g) + g + "}"
    }

    mutating func scalar() -> String {
        random.pick([
            "0", "-1", "1.50", "2E3", "1e-2", "-0", "12345678901234567890", "true", "false", "null", q(""), q("plain"),
            q("with \\\"quote\\\""), q("\\u00e9t\\u00e9"), q("\u{e9}t\u{e9}"), q("a\\/b"), q("line\\nbreak"),
            q("sep\\u2028x"), q("tab\\t"), q("{[,]}"),
        ])
    }

    mutating func value(depth: Int = 0) -> String {
        if depth == 0, let deepValues, random.chance(5) {
            let levels = random.int((deepValues / 2)..<deepValues)
            return String(repeating: "[", count: levels) + scalar() + String(repeating: "]", count: levels)
        }
        switch random.int(0..<(depth >= 2 ? 1 : 4)) {
        case 0: return scalar()
        case 1: return "[" + (0..<random.int(0..<3)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
        default: return params(depth: depth + 1)
        }
    }

    mutating func params(depth: Int = 0) -> String {
        let count = random.int(0..<4)
        return object((0..<count).map { ("k\($0)", random.chance(70) || depth > 0 ? scalar() : value(depth: depth + 1)) })
    }

    mutating func screenMembers() -> [(String, String)] {
        var members = [("screen", q(random.pick(["inbox", "detail", "compose", "settings"])))]
        if random.chance(40) { members.append(("params", params())) }
        if random.chance(30) { members.append(("title", random.chance(10) ? "null" : q(random.pick(["Title", "T\\u00edtulo", "Inbox"])))) }
        return members
    }

    mutating func someScreen(_ session: Session) -> String {
        var stacks = [session.root]
        while case .stack(let next, _)? = stacks.last?.presentation?.content { stacks.append(next) }
        if random.chance(80) {
            let stack = random.chance(60) ? stacks[stacks.count - 1] : random.pick(stacks)
            return random.pick(stack.path).id.rawValue
        }
        return "s\(random.int(1..<(session.lastIssuedID + 3)))"
    }

    mutating func somePresentation(_ session: Session) -> String {
        var ids: [String] = []
        var stack: Stack? = session.root
        while let current = stack, let presentation = current.presentation {
            ids.append(presentation.id.rawValue)
            if case .stack(let next, _) = presentation.content { stack = next } else { stack = nil }
        }
        if !ids.isEmpty, random.chance(75) { return random.pick(ids) }
        return "p\(random.int(1..<(session.lastIssuedID + 3)))"
    }

    mutating func alertAnswer(_ session: Session) -> String {
        guard session.top.alert != nil, random.chance(80) else { return value() }
        switch random.int(0..<6) {
        case 0: return object([("action", q("nope"))])
        case 1: return object([("action", q("ok")), ("fields", object([("reason", "1")]))])
        default:
            var members = [("action", q(random.pick(["ok", "no"])))]
            if random.chance(50) { members.append(("fields", object([("reason", q("because"))]))) }
            return object(members)
        }
    }

    /// One operation's route and members; `session` is the tree it is drawn on.
    mutating func operation(_ session: Session) -> (route: String, members: [(String, String)]) {
        var members: [(String, String)] = []
        let route: String
        if session.top.alert != nil, random.chance(50) {
            route = "dismiss"
            if random.chance(30) { members.append(("presentation", q(somePresentation(session)))) }
            if random.chance(70) { members.append(("result", alertAnswer(session))) }
        } else {
            switch random.int(0..<100) {
            case 0..<24:
                route = "push"
                members = screenMembers()
            case 24..<36:
                route = "pop"
                if random.chance(40) { members.append(("result", value())) }
            case 36..<39: route = "pop-to-root"
            case 39..<43:
                route = "pop-to"
                members.append(("screen", q(someScreen(session))))
            case 43..<47:
                route = "replace"
                members = screenMembers()
            case 47..<58:
                route = "present"
                members = screenMembers()
                members.append(("style", q(random.pick(["modal", "sheet", "fullScreen", "popover"]))))
                if random.chance(25) { members.append(("navigation", random.chance(50) ? "true" : "false")) }
            case 58..<62:
                route = "present"
                let actions = "[{\"id\":\"ok\",\"title\":\"OK\"},{\"id\":\"no\",\"title\":\"No\",\"role\":\"cancel\"}]"
                members = [("style", q("alert")), ("alert", object([("title", q("Sure?")), ("actions", actions), ("fields", "[{\"id\":\"reason\"}]")]))]
            case 62..<76:
                route = "dismiss"
                if random.chance(40) { members.append(("presentation", q(somePresentation(session)))) }
                if random.chance(50) { members.append(("result", random.chance(20) ? "null" : value())) }
            case 76..<83:
                route = "emit"
                if random.chance(40) { members.append(("presentation", q(somePresentation(session)))) }
                members.append(("result", random.chance(5) ? "null" : value()))
            case 83..<86:
                route = "set-root"
                members = screenMembers()
            default:
                route = "set-state"
                members.append(("state", q(random.pick(["loading", "content", "failed"]))))
                if random.chance(50) { members.append(("params", params())) }
                if random.chance(50) { members.append(("screen", q(someScreen(session)))) }
                if random.chance(50) { members.append(("transition", q(random.pick(["automatic", "crossfade", "none"])))) }
            }
        }
        if random.chance(8) { members.append(("from", q(random.chance(70) ? session.top.screen.rawValue : someScreen(session)))) }
        if random.chance(2) { members.append(("bogus", "1")) }
        return (route, members)
    }

    /// A request's route and body.
    mutating func request(_ session: Session) -> (route: String, body: String) {
        if random.chance(12) {
            let operations = (0..<random.int(1..<5)).map { _ -> String in
                let (route, members) = operation(session)
                return object([("op", q(route))] + members)
            }
            return ("batch", object([("operations", "[" + operations.joined(separator: ",") + "]")]))
        }
        let (route, members) = operation(session)
        if members.isEmpty, ["pop", "pop-to-root"].contains(route), random.chance(50) { return (route, "") }
        return (route, object(members))
    }
}

/// What a keyed change answered first.
struct RecordedAnswer {
    var presented: String?
    var route: String
    var body: String
    var answer: [UInt8]
    var revision: Int
}
