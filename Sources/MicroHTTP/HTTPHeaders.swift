/// Header fields in the order they came or will go, looked up without regard to case.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)]

    public init() {
        fields = []
    }

    public init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the field `name` (case-insensitive), as HTTP compares names.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the field `name`, in order: for list fields that may come more than once.
    public func values(_ name: String) -> [String] {
        fields.compactMap { $0.name.caseInsensitiveEquals(name) ? $0.value : nil }
    }

    /// Adds a field, keeping any earlier one of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with this one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality, enough for header names and tokens.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Compared in place, as every request looks up several names: zipping two UTF-8 views
        // decodes each string's representation at every step. Native strings always have
        // contiguous UTF-8; the views are zipped only for a bridged one.
        let inPlace = a.withContiguousStorageIfAvailable { a in
            b.withContiguousStorageIfAvailable { b in
                (0..<a.count).allSatisfy { Self.sameIgnoringCase(a[$0], b[$0]) }
            }
        }
        return (inPlace ?? nil) ?? zip(a, b).allSatisfy(Self.sameIgnoringCase)
    }

    private static func sameIgnoringCase(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7a)
    }
}
