/// A JSON value held as data: screen params and results are whatever the client sent.
///
/// The domain never parses or prints JSON; it only needs to keep a client's value intact
/// and look inside an alert's answer. Numbers keep their original spelling so that a value
/// goes back out exactly as it came in (no rounding through `Double`). Objects keep their
/// members in order; keys are unique (the parser refuses duplicates).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number as written by the client, already checked to be a valid, finite JSON number.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of the member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// True for objects: params must be one.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// How deeply arrays and objects nest (a scalar is 0, `{}` is 1).
    public var depth: Int {
        switch self {
        case .null, .bool, .number, .string: 0
        case .array(let items): 1 + (items.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.map(\.value.depth).max() ?? 0)
        }
    }

    /// The empty object, the default params.
    public static let emptyObject = JSONValue.object([])
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
