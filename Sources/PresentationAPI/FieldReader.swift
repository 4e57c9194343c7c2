import JSON
import Presentation

/// Reads the members of one JSON object in a request body, naming the exact place
/// (a JSON pointer) of anything missing, mistyped or unknown.
struct FieldReader {
    private let members: [JSONMember]
    private let pointer: String
    /// Which members were asked for, by index: a bit each for the first 64, an array for any
    /// beyond (a body may have many; ours have a handful). Indexes, not keys, since the parser
    /// refuses duplicate keys: a `Set` of keys cost a hash and an allocation per field read.
    private var readMask: UInt64 = 0
    private var readBeyond: [Bool] = []

    init(_ value: JSONValue, at pointer: String = "") throws(APIError) {
        guard case .object(let members) = value else {
            throw .invalidField(pointer: pointer.isEmpty ? "/" : pointer, reason: "must be a JSON object")
        }
        self.members = members
        self.pointer = pointer
    }

    /// A member's value; JSON `null` reads as absent.
    mutating func value(_ key: String) -> JSONValue? {
        guard let index = members.firstIndex(where: { $0.key == key }) else { return nil }
        if index < 64 {
            readMask |= 1 << UInt64(index)
        } else {
            if readBeyond.isEmpty { readBeyond = Array(repeating: false, count: members.count - 64) }
            readBeyond[index - 64] = true
        }
        let value = members[index].value
        return value == .null ? nil : value
    }

    private func wasRead(_ index: Int) -> Bool {
        index < 64 ? readMask & (1 << UInt64(index)) != 0 : !readBeyond.isEmpty && readBeyond[index - 64]
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let string) = value else { throw .invalidField(pointer: path(key), reason: "must be a string") }
        return string
    }

    mutating func requiredString(_ key: String) throws(APIError) -> String {
        guard let string = try string(key) else { throw .missingField(pointer: path(key)) }
        return string
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let bool) = value else { throw .invalidField(pointer: path(key), reason: "must be true or false") }
        return bool
    }

    /// A whole number within `range` (no fraction, no exponent).
    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let spelling) = value, let number = Int(spelling), range.contains(number) else {
            throw .invalidField(
                pointer: path(key), reason: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    mutating func object(_ key: String) throws(APIError) -> FieldReader? {
        guard let value = value(key) else { return nil }
        return try FieldReader(value, at: path(key))
    }

    mutating func array(_ key: String) throws(APIError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw .invalidField(pointer: path(key), reason: "must be an array") }
        return items
    }

    /// Refuses members nobody asked for: a misspelt `parmas` should fail, not vanish.
    func finish() throws(APIError) {
        if let unknown = members.indices.first(where: { !wasRead($0) }) {
            throw .unknownField(pointer: path(members[unknown].key))
        }
    }

    /// The JSON pointer of `key` in this object (RFC 6901 escaping).
    ///
    /// Every nested object read names its place, so this runs on the way of a good request
    /// too: it looks at the key's bytes itself. `String.contains` with a string argument is
    /// Foundation's `range(of:)` here, through `NSString`: about 3,700 instructions a call, a
    /// tenth of a create's (docs/performance.md, item 85).
    func path(_ key: String) -> String {
        var escaped = pointer + "/"
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return escaped + key
        }
        for character in key.unicodeScalars {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
