/// The bytes of a request's header fields (`HTTPHeaders`), in one allocation of a class of
/// their own.
///
/// Not an `[UInt8]`: an array made at a given size (`Array(repeating:count:)`,
/// `Array(unsafeUninitializedCapacity:)`) runs the standard library's unspecialised code,
/// which looks up the array type's metadata on every request, and an array filled by appends
/// checks its capacity and uniqueness at each; either cost more than the copying (measured,
/// docs/performance.md, item 51). `Storage` is allocated with its metadata at hand.
///
/// Sendable although `ManagedBuffer` is not: the bytes are written only while `init` runs
/// and only read after, so copies of the headers, on any thread, share them as they are.
struct HeaderBlock: @unchecked Sendable {
    private final class Storage: ManagedBuffer<Int, UInt8> {}

    private let storage: Storage

    /// A block of `count` bytes, which `fill` must initialise, every one of them.
    init(count: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in count }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { fill($0) }
    }

    /// Calls `body` with the bytes, valid only during the call.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { count, bytes in try body(UnsafeBufferPointer(start: bytes, count: count.pointee)) }
    }
}
