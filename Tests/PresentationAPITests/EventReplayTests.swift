import Foundation
import MicroHTTP
import Presentation
import Testing

/// A client that follows a session through its events alone (a stream without
/// `include=session`, or answers with `Prefer: return=minimal`) must be able to build the
/// tree's shape from them: every stack, screen and presentation id, where each one is.
@Suite("The tree's shape replayed from the events")
struct EventReplayTests {
    let harness = APIHarness()

    /// The shape of a tree: each stack's id and screen ids from the root up, with the
    /// presentation on it (its id, and whether it is an alert).
    struct Shape: Equatable, CustomStringConvertible {
        struct Level: Equatable {
            var stack: String
            var screens: [String]
            var presentation: String?
            var presentedBy: String?
        }

        var levels: [Level] = []
        /// An alert's id over the topmost stack.
        var alert: (id: String, by: String)?

        static func == (left: Shape, right: Shape) -> Bool {
            left.levels == right.levels && left.alert?.id == right.alert?.id && left.alert?.by == right.alert?.by
        }

        var description: String {
            levels.map { "\($0.stack)\($0.screens) ^\($0.presentation ?? "-") by \($0.presentedBy ?? "-")" }
                .joined(separator: " / ") + (alert.map { " alert \($0.id) by \($0.by)" } ?? "")
        }

        /// Read from a session's `root`, as `GET /v1/sessions/{id}` writes it.
        init(tree: [String: Any]) {
            var stack: [String: Any]? = tree
            while let current = stack {
                let screens = (current["path"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                stack = nil
                var level = Level(stack: current["id"] as? String ?? "?", screens: screens)
                if let presentation = current["presentation"] as? [String: Any] {
                    let id = presentation["id"] as? String ?? "?", by = presentation["presentedBy"] as? String ?? "?"
                    if presentation["alert"] is [String: Any] {
                        alert = (id, by)
                    } else {
                        level.presentation = id
                        level.presentedBy = by
                        stack = presentation["stack"] as? [String: Any]
                    }
                }
                levels.append(level)
            }
        }

        /// Replayed from every event since the session's creation.
        init(events: [[String: Any]]) {
            for event in events {
                let type = event["type"] as? String
                let stack = event["stack"] as? String
                let screen = event["screen"] as? String
                let last = levels.count - 1
                switch type {
                case "root-set":
                    levels = [Level(stack: stack ?? "?", screens: [screen ?? "?"])]
                    alert = nil
                case "pushed":
                    levels[last].screens.append(screen ?? "?")
                case "popped":
                    let gone = event["screens"] as? [String] ?? []
                    levels[last].screens.removeAll { gone.contains($0) }
                case "replaced":
                    levels[last].screens[levels[last].screens.count - 1] = screen ?? "?"
                case "presented":
                    let id = event["presentation"] as? String ?? "?", by = event["presentedBy"] as? String ?? "?"
                    if let stack {
                        levels[last].presentation = id
                        levels[last].presentedBy = by
                        // The screen the presented stack starts with: nothing else names it.
                        levels.append(Level(stack: stack, screens: screen.map { [$0] } ?? []))
                    } else {
                        alert = (id, by)
                    }
                case "dismissed", "cancelled":
                    let id = event["presentation"] as? String
                    if alert?.id == id {
                        alert = nil
                    } else if let index = levels.firstIndex(where: { $0.presentation == id }) {
                        levels.removeSubrange((index + 1)...)
                        levels[index].presentation = nil
                        levels[index].presentedBy = nil
                        alert = nil
                    }
                default:
                    break
                }
            }
        }
    }

    @Test("Every change's events, replayed from the creation, give the tree the session has")
    func replay() throws {
        let (id, token) = try harness.createSession()
        let base = "/v1/sessions/\(id)"
        let changes: [(String, String)] = [
            ("push", #"{"screen": "message"}"#),
            ("present", #"{"style": "sheet", "screen": "compose"}"#),
            ("push", #"{"screen": "recipients"}"#),
            ("pop", #"{"result": {"to": "ann"}}"#),
            ("set-state", #"{"state": "editing"}"#),
            ("present", #"{"style": "alert", "alert": {"actions": [{"id": "ok", "title": "OK"}]}}"#),
            ("dismiss", #"{"result": {"action": "ok"}}"#),
            ("present", #"{"style": "popover", "screen": "picker", "navigation": false}"#),
            ("replace", #"{"screen": "picker2"}"#),
            ("emit", #"{"result": 1}"#),
            ("batch", #"{"operations": [{"op": "dismiss", "presentation": "p4", "result": "sent"}, {"op": "present", "style": "fullScreen", "screen": "viewer"}]}"#),
            ("set-root", #"{"screen": "home"}"#),
            ("present", #"{"style": "modal", "screen": "login"}"#),
        ]
        for (route, body) in changes {
            let changed = harness.send(.post, "\(base)/\(route)", json: body, token: token)
            #expect(changed.status == .ok, "\(route): \(String(decoding: changed.bodyBytes, as: UTF8.self))")
            let session = try harness.send(.get, base, token: token).jsonObject()
            let events = try harness.send(.get, "\(base)/events", token: token).jsonObject()["events"] as? [[String: Any]]
            let tree = Shape(tree: try #require(session["root"] as? [String: Any]))
            let replayed = Shape(events: try #require(events))
            #expect(replayed == tree, "after \(route): replayed \(replayed), the session has \(tree)")
        }
    }
}
