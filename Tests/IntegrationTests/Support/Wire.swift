import Foundation

/// Builds the JSON values docs/api.md promises, for comparing whole subtrees of a session.
enum Wire {
    static let null = NSNull()

    /// A screen in a stack's `path`.
    static func screen(
        _ id: String,
        _ name: String,
        title: String? = nil,
        params: [String: Any] = [:],
        result: [String: Any]? = nil,
        state: [String: Any]? = nil
    ) -> [String: Any] {
        ["id": id, "screen": name, "title": title ?? null, "params": params, "result": result ?? null, "state": state ?? null]
    }

    /// A stack: its id, its screens bottom to top, and what is presented over it.
    static func stack(_ id: String, _ path: [[String: Any]], presentation: [String: Any]? = nil) -> [String: Any] {
        ["id": id, "path": path, "presentation": presentation ?? null]
    }

    /// A presentation that shows a stack (every style but `alert`).
    static func presentation(
        _ id: String,
        style: String,
        presentedBy: String,
        navigation: Bool = true,
        stack: [String: Any]
    ) -> [String: Any] {
        ["id": id, "style": style, "presentedBy": presentedBy, "navigation": navigation, "stack": stack]
    }

    /// An alert presentation.
    static func alert(_ id: String, presentedBy: String, alert: [String: Any]) -> [String: Any] {
        ["id": id, "style": "alert", "presentedBy": presentedBy, "alert": alert]
    }

    /// The session's `top` member.
    static func top(stack: String, screen: String, presentation: String? = nil, alert: String? = nil) -> [String: Any] {
        ["stack": stack, "screen": screen, "presentation": presentation ?? null, "alert": alert ?? null]
    }

    /// A screen's `result` member.
    static func result(from: String, value: Any, revision: Int) -> [String: Any] {
        ["from": from, "value": value, "revision": revision]
    }
}
