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
        var members = PlainScreenMembers(takesFrom: true, takesStyle: kind == .present)
        let plain = body.withUnsafeBufferPointer { bytes in
            PlainJSONObject.forEachMember(in: bytes, maxDepth: parser.maxDepth, maxStringBytes: parser.maxStringBytes) {
                members.take($0, $1)
            }
        }
        guard plain, let screen = members.screen else { return nil }
        var expectedTop: ScreenID?
        if let from = members.from {
            guard let id = ScreenID(rawValue: from) else { return nil }
            expectedTop = id
        }
        let operation: Operation
        switch kind {
        case .replace: operation = .replace(screen)
        case .setRoot: operation = .setRoot(screen)
        case .present:
            // `navigation` defaults to true; an alert's style refuses a screen, and the general
            // way reads the alert's own members.
            guard let styleName = members.style, let style = PresentationStyle(rawValue: styleName),
                let request = try? PresentationRequest(style: style, content: .screen(screen, navigation: true))
            else { return nil }
            operation = .present(request)
        default: operation = .push(screen)
        }
        return Step(operation: operation, expectedTop: expectedTop)
    }

    /// A creation's body read without a tree when it is plain: `{"root": {"screen": ...,
    /// "title"?: ..., "params"?: {...}}, "ttl"?: seconds}`, the root's params one level
    /// deeper than a push's. As `plainScreenStep`: nil for anything else, which
    /// `creation(from:)` then reads or refuses, and never an answer that way would not give.
    /// Every app's launch is one; the tree cost about 10,000 of its 64,000 instructions (item 93).
    static func plainCreation(body: [UInt8], parser: JSONParser) -> (root: ScreenSpec, timeToLive: Int?)? {
        var root: ScreenSpec?
        var timeToLive: Int?
        var seenTimeToLive = false
        let plain = body.withUnsafeBufferPointer { bytes in
            PlainJSONObject.forEachMember(
                in: bytes, maxDepth: parser.maxDepth, maxStringBytes: parser.maxStringBytes, nestedMembers: true
            ) { key, value in
                if PlainJSONObject.same(key, "root") {
                    guard root == nil, case .members(let rootBytes) = value else { return false }
                    var members = PlainScreenMembers(takesFrom: false, takesStyle: false)
                    let read = PlainJSONObject.forEachMember(
                        in: rootBytes, maxDepth: parser.maxDepth - 1, maxStringBytes: parser.maxStringBytes
                    ) { members.take($0, $1) }
                    root = read ? members.screen : nil
                    return root != nil
                }
                guard PlainJSONObject.same(key, "ttl"), !seenTimeToLive else { return false }
                seenTimeToLive = true
                switch value {
                case .null: return true  // null reads as absent, as `FieldReader` has it
                case .number(let digits):
                    timeToLive = wholeNumber(digits, in: timeToLiveRange)
                    return timeToLive != nil
                default: return false
                }
            }
        }
        guard plain, let root else { return nil }
        return (root, timeToLive)
    }

    /// Digits with no sign, fraction or leading zero, read as the number they spell when it
    /// lies in `range`; nil for any other spelling, left to `Int(_:)` on the general way.
    private static func wholeNumber(_ digits: UnsafeBufferPointer<UInt8>, in range: ClosedRange<Int>) -> Int? {
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        guard let first = digits.first, first > zero, first <= nine, digits.count <= 18 else { return nil }
        var number = 0
        for digit in digits {
            guard digit >= zero, digit <= nine else { return nil }
            number = number * 10 + Int(digit - zero)
        }
        return range.contains(number) ? number : nil
    }

    /// The members of a plain screen request, taken one at a time as the reader finds them: the
    /// screen's own (`screen`, `title`, `params`), and a route's `from` and `style` if it takes them.
    private struct PlainScreenMembers {
        /// Whether the route's `from` and a present's `style` are among them.
        let takesFrom: Bool
        let takesStyle: Bool
        var name: String?
        var title: String?
        var params: JSONText?
        var from: String?
        var style: String?
        var seen: UInt8 = 0

        /// The screen they spell, or nil when it has no name or `ScreenSpec` refuses it.
        var screen: ScreenSpec? {
            guard let name else { return nil }
            return try? ScreenSpec(name: name, title: title, paramsText: params ?? .emptyObject)
        }

        /// Takes a member; false for one the general way might read otherwise or refuse.
        @inline(__always)
        mutating func take(_ key: UnsafeBufferPointer<UInt8>, _ value: PlainJSONObject.Value) -> Bool {
            // The parser refuses a key given twice, null or not; so does this.
            guard let field = PlainField(key), seen & field.rawValue == 0 else { return false }
            seen |= field.rawValue
            switch (field, value) {
            case (.screen, .string(let bytes)): name = String(decoding: bytes, as: UTF8.self)
            case (.title, .string(let bytes)): title = String(decoding: bytes, as: UTF8.self)
            case (.params, .object(let text)): params = text
            case (.from, .string(let bytes)) where takesFrom: from = String(decoding: bytes, as: UTF8.self)
            case (.style, .string(let bytes)) where takesStyle: style = String(decoding: bytes, as: UTF8.self)
            // JSON null reads as absent (`FieldReader.value`); the screen's name is required.
            case (.title, .null), (.params, .null): break
            case (.from, .null) where takesFrom: break
            default: return false
            }
            return true
        }
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
