extension JSONValue {
    /// The bytes of this value's compact JSON text (no whitespace) with every string counted as
    /// its UTF-8 bytes between quotes, unescaped: what the value weighs wherever it is kept.
    ///
    /// Not the length the writer produces, which escapes quotes, backslashes and control
    /// characters: a limit on what a session holds (`Limits.maxSessionBytes`) needs a weight
    /// that is cheap to take and the same on every server, not the exact wire size. Equal to
    /// `JSONText(value).count` for a value with nothing to escape.
    public var unescapedTextByteCount: Int {
        switch self {
        case .null: 4
        case .bool(let value): value ? 4 : 5
        case .number(let spelling): spelling.utf8.count
        case .string(let string): string.utf8.count + 2
        case .array(let items):
            // Brackets, and a comma between each two items.
            items.reduce(2 + max(items.count - 1, 0)) { $0 + $1.unescapedTextByteCount }
        case .object(let members):
            // Braces, a comma between each two members, and each key's quotes and colon.
            members.reduce(2 + max(members.count - 1, 0)) { $0 + $1.key.utf8.count + 3 + $1.value.unescapedTextByteCount }
        }
    }
}
