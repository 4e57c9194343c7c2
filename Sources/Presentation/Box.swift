/// A value behind a reference: for a field most values leave empty and that is larger than
/// a reference, so that an empty one costs 8 bytes (a screen's result, a link's alert).
/// Immutable, so copies of the holder share it; equal when the values are.
///
/// Kept in an optional stored property. An `indirect` enum case or this class inside an
/// enum case leaked the box under LeakSanitizer (Swift 6.3.1, see Chain.Link).
final class Box<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (left: Box, right: Box) -> Bool {
        left === right || left.value == right.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
