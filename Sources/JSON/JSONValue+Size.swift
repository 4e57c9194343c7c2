extension JSONValue {
    /// About the bytes this value takes in memory, parsed: what it weighs wherever a session keeps
    /// it as a value (a screen's result, a closed presentation's outcome).
    ///
    /// Its JSON text is no measure of that: parsed, `[1,1,1]` takes 24 bytes an item, twelve
    /// times its text, so a limit on text let a session of dense results hold ten times what it
    /// said (docs/performance.md). Counted here: 24 bytes a value (`MemoryLayout<JSONValue>.stride`),
    /// 16 more a member (its key), 32 for each array's or object's storage and each string longer
    /// than a small string's 15 bytes (a heap block's header), and the strings' and numbers'
    /// bytes. Never less than the value's text unescaped, so a limit in these bytes is never
    /// looser than the same limit on text.
    public var heldBytes: Int {
        switch self {
        case .null, .bool: Self.slot
        case .number(let spelling): Self.slot + Self.stringBytes(spelling)
        case .string(let string): Self.slot + Self.stringBytes(string)
        case .array(let items):
            items.reduce(Self.slot + Self.heapHeader) { $0 + $1.heldBytes }
        case .object(let members):
            members.reduce(Self.slot + Self.heapHeader) { $0 + Self.keySlot + Self.stringBytes($1.key) + $1.value.heldBytes }
        }
    }

    private static let slot = 24
    private static let keySlot = 16
    private static let heapHeader = 32

    /// A string's bytes, and the heap block it takes past 15 bytes.
    private static func stringBytes(_ string: String) -> Int {
        let count = string.utf8.count
        return count > 15 ? count + heapHeader : count
    }
}
