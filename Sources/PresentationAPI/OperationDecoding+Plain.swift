import JSON
import Presentation

extension OperationDecoding {
    /// A push, replace, set-root or present body read without a `JSONValue` tree, when it is
    /// plain (`PlainJSONObject`) and valid: `{"screen": ..., "title"?: ..., "params"?: {...},
    /// "from"?: ...}`, and for a present `"style"` too, a style that shows a screen (an alert
    /// and `"navigation"`, a boolean, go the general way). Nil for anything else, which
    /// `step(_:from:)` then decodes or refuses with its exact error; so this never decides an error, and what it returns, `step(_:from:)`
    /// returns for the same body (`PlainBodyTests` compares the two on generated bodies).
    ///
    /// Nearly every write is one of these, and the tree, its strings and the reader's checks
    /// cost about 14,000 instructions a push, more than the change itself (docs/performance.md);
    /// a sheet's present about 9,700 of its 68,000 (item 88).
    static func plainScreenStep(_ kind: OperationKind, body: [UInt8], parser: JSONParser) -> Step? {
        guard kind == .push || kind == .replace || kind == .setRoot || kind == .present else { return nil }
        var name: String?
        var styleName: String?
        var title: String?
        var params: JSONText?
        var from: String?
        var seen: UInt8 = 0
        let plain = body.withUnsafeBufferPointer { bytes in
            PlainJSONObject.forEachMember(in: bytes, maxDepth: parser.maxDepth, maxStringBytes: parser.maxStringBytes) {
                key, value in
                // The parser refuses a key given twice, null or not; so does this.
                guard let field = PlainField(key), seen & field.rawValue == 0 else { return false }
                seen |= field.rawValue
                switch (field, value) {
                case (.screen, .string(let bytes)): name = String(decoding: bytes, as: UTF8.self)
                case (.title, .string(let bytes)): title = String(decoding: bytes, as: UTF8.self)
                case (.from, .string(let bytes)): from = String(decoding: bytes, as: UTF8.self)
                case (.style, .string(let bytes)) where kind == .present:
                    styleName = String(decoding: bytes, as: UTF8.self)
                case (.params, .object(let text)): params = text
                // JSON null reads as absent (`FieldReader.value`); the screen's name is required.
                case (.title, .null), (.from, .null), (.params, .null): break
                default: return false
                }
                return true
            }
        }
        guard plain, let name else { return nil }
        var expectedTop: ScreenID?
        if let from {
            guard let id = ScreenID(rawValue: from) else { return nil }
            expectedTop = id
        }
        guard let screen = try? ScreenSpec(name: name, title: title, paramsText: params ?? .emptyObject) else { return nil }
        let operation: Operation
        switch kind {
        case .replace: operation = .replace(screen)
        case .setRoot: operation = .setRoot(screen)
        case .present:
            // `navigation` defaults to true; an alert's style refuses a screen, and the general
            // way reads the alert's own members.
            guard let styleName, let style = PresentationStyle(rawValue: styleName),
                let request = try? PresentationRequest(style: style, content: .screen(screen, navigation: true))
            else { return nil }
            operation = .present(request)
        default: operation = .push(screen)
        }
        return Step(operation: operation, expectedTop: expectedTop)
    }

    /// The members a plain screen body may have; each raw value is its bit in a mask of those seen.
    private enum PlainField: UInt8 {
        case screen = 1, title = 2, params = 4, from = 8, style = 16

        init?(_ key: UnsafeBufferPointer<UInt8>) {
            if PlainJSONObject.same(key, "screen") {
                self = .screen
            } else if PlainJSONObject.same(key, "params") {
                self = .params
            } else if PlainJSONObject.same(key, "title") {
                self = .title
            } else if PlainJSONObject.same(key, "from") {
                self = .from
            } else if PlainJSONObject.same(key, "style") {
                self = .style
            } else {
                return nil
            }
        }
    }
}
