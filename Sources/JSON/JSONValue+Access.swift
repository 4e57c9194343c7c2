
/// Typed views of a `JSONValue` for decoding request bodies: each is nil when the value is of
/// another kind, so a decoder can turn a wrong type into one precise problem response.
extension JSONValue {
    /// The integer, when this is a number spelled without fraction or exponent that fits `Int`.
    ///
    /// `1.0` and `1e2` are refused rather than converted: a field documented as an integer
    /// should not accept spellings that only happen to equal one.
    public var intValue: Int? {
        guard case .number(let spelling) = self else { return nil }
        return Int(spelling)
    }

    /// The number as the nearest `Double`; always finite, since the parser refuses the rest.
    public var doubleValue: Double? {
        guard case .number(let spelling) = self else { return nil }
        return Double(spelling)
    }

    public var boolValue: Bool? {
        guard case .bool(let bool) = self else { return nil }
        return bool
    }

    public var isNull: Bool {
        self == .null
    }

    /// The members in the order the client wrote them.
    public var objectMembers: [JSONMember]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    public var arrayValue: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }
}
