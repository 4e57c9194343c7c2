/// Reads a fuzzer's bytes one decision at a time; past the end every read is 0, so any input,
/// however short, decodes to something.
public struct ByteCursor {
    private let bytes: [UInt8]
    private var index = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<count` (0 when `count` is 0).
    public mutating func below(_ count: Int) -> Int {
        let value = Int(byte())
        return count > 0 ? value % count : 0
    }

    /// True for about one byte in `oneIn`.
    public mutating func chance(_ oneIn: Int) -> Bool {
        below(oneIn) == 0
    }

    /// One of `choices`, which must not be empty.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }
}
