import JSON
import Presentation
import Testing

@Suite("Values clients send")
struct ValueValidationTests {
    @Test(
        "A screen spec needs a name of 1-128 bytes, a title up to 512 bytes and object params",
        arguments: [
            ("home", nil, JSONValue.emptyObject, true),
            (String(repeating: "n", count: 128), String(repeating: "t", count: 512), .emptyObject, true),
            ("", nil, .emptyObject, false),
            (String(repeating: "n", count: 129), nil, .emptyObject, false),
            (String(repeating: "é", count: 65), nil, .emptyObject, false),
            ("home", String(repeating: "t", count: 513), .emptyObject, false),
            ("home", nil, .array([]), false),
            ("home", nil, .null, false),
            ("home", nil, .string("x"), false),
        ] as [(String, String?, JSONValue, Bool)])
    func screenSpec(name: String, title: String?, params: JSONValue, valid: Bool) {
        do {
            let spec = try ScreenSpec(name: name, title: title, params: params)
            #expect(valid)
            #expect(spec.name == name && spec.title == title && spec.params == params)
        } catch {
            #expect(!valid)
            guard case .invalidScreen = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }

    @Test("Screen params default to the empty object")
    func defaultParams() throws {
        #expect(try ScreenSpec(name: "home").params == .emptyObject)
    }

    static let ok = AlertAction(id: "ok", title: "OK")

    @Test(
        "An alert is refused when a renderer could not show or answer it",
        arguments: [
            ([], [], "no actions"),
            (Array(repeating: ok, count: 1) + (1...16).map { AlertAction(id: "a\($0)", title: "A") }, [], "17 actions"),
            ([ok], (1...9).map { AlertField(id: "f\($0)") }, "9 fields"),
            ([ok, ok], [], "duplicate action"),
            ([AlertAction(id: "", title: "Empty")], [], "empty action id"),
            ([ok], [AlertField(id: "f"), AlertField(id: "f")], "duplicate field"),
            ([ok], [AlertField(id: "")], "empty field id"),
            (
                [AlertAction(id: "a", title: "A", role: .cancel), AlertAction(id: "b", title: "B", role: .cancel)],
                [], "two cancel actions"
            ),
        ] as [([AlertAction], [AlertField], String)])
    func invalidAlerts(actions: [AlertAction], fields: [AlertField], why: String) {
        #expect(throws: PresentationError.self, "\(why)") { try Alert(actions: actions, fields: fields) }
        do {
            _ = try Alert(actions: actions, fields: fields)
        } catch {
            guard case .invalidAlert = error else {
                Issue.record("\(why): unexpected \(error)")
                return
            }
        }
    }

    @Test("An alert at the limits is accepted")
    func alertAtLimits() throws {
        let actions =
            (1...15).map { AlertAction(id: "a\($0)", title: "A", role: .destructive) }
            + [AlertAction(id: "no", title: "No", role: .cancel)]
        let fields = (1...8).map { AlertField(id: "f\($0)", secure: $0 == 1) }
        let alert = try Alert(title: "T", message: "M", actions: actions, fields: fields)
        #expect(alert.actions.count == 16 && alert.fields.count == 8)
        #expect(alert.fields[0].secure && !alert.fields[1].secure)
    }

    @Test(
        "Every non-alert style presents a screen, and only the alert style presents an alert",
        arguments: PresentationStyle.allCases)
    func presentationRequest(style: PresentationStyle) throws {
        let screen = PresentationRequest.Content.screen(Fixture.spec("detail"), navigation: true)
        let alert = PresentationRequest.Content.alert(Fixture.alertBody)
        let (fits, clashes) = style == .alert ? (alert, screen) : (screen, alert)
        #expect(try PresentationRequest(style: style, content: fits).style == style)
        #expect {
            try PresentationRequest(style: style, content: clashes)
        } throws: { error in
            guard case PresentationError.invalidPresentation = error else { return false }
            return true
        }
    }

    @Test("Event names are the ones clients see")
    func eventNames() {
        let s = screenID("s1")
        let k = stackID("k1")
        let p = presentationID("p1")
        let names = [
            EventKind.pushed(screen: s, stack: k), .popped(screens: [s], stack: k),
            .replaced(old: s, new: s, stack: k), .presented(p, style: .sheet, by: s, stack: k, screen: s),
            .dismissed(p, by: s), .cancelled(p, by: s), .result(to: s, from: .screen(s), value: .null),
            .rootSet(screen: s, stack: k),
        ].map(\.name)
        #expect(names == ["pushed", "popped", "replaced", "presented", "dismissed", "cancelled", "result", "root-set"])
    }
}
