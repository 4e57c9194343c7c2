#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of bytes in a block of its own, shared by reference, with room on either side: a
/// response body libmicrohttpd sends without copying, from memory that a cache keeps too.
///
/// A session's answer is its JSON: a head of a few hundred bytes that each revision writes
/// afresh, then a tree that a push or a pop changes near its end only. Kept in one of these,
/// with room before the tree for any head and after it for a few more screens, the next
/// revision's answer is made where the last one is: the head rewritten to end where the tree
/// starts, a screen added or dropped near the end. Neither we nor libmicrohttpd copy the tree
/// (`MHD_create_response_from_buffer_with_free_callback_cls`, which holds a reference until it
/// has sent the bytes). One run, not a head and a tree apart: libmicrohttpd sends a response of
/// several buffers with a system call for its header and another for its body.
///
/// Shared, a run does not change. The one holder of the only reference (the cache, once no
/// response is sending it) may edit it in place: copy-on-write by hand, as `Array` does it,
/// checked with `isKnownUniquelyReferenced` by the caller. That promise is why the class can be
/// `Sendable` with mutable storage.
///
/// Indices are offsets in the block: the run is `startIndex..<endIndex`, and an edit at one end
/// leaves the indices of the bytes at the other where they were.
public final class SharedBytes: @unchecked Sendable {
    // Unchecked: edited only by the holder of the only reference, never through overlapping
    // inout accesses; the runtime's check of each access cost more than the edit's arithmetic.
    @exclusivity(unchecked) private var block: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) public private(set) var startIndex: Int
    @exclusivity(unchecked) public private(set) var endIndex: Int

    /// A copy of `bytes`, with room for `headroom` more bytes before them and `tailroom` after.
    public init(copying bytes: UnsafeBufferPointer<UInt8>, headroom: Int = 0, tailroom: Int = 0) {
        startIndex = max(headroom, 0)
        endIndex = startIndex + bytes.count
        capacity = max(endIndex + max(tailroom, 0), 1)
        block = .allocate(capacity: capacity)
        if let base = bytes.baseAddress { (block + startIndex).initialize(from: base, count: bytes.count) }
    }

    /// A copy of `other`'s run, at the same indices, with the same room.
    public convenience init(copying other: SharedBytes) {
        self.init(
            copying: UnsafeBufferPointer(start: other.block + other.startIndex, count: other.count),
            headroom: other.startIndex, tailroom: other.capacity - other.endIndex)
    }

    deinit {
        block.deallocate()
    }

    public var count: Int { endIndex - startIndex }

    /// The run's bytes, valid during the call only.
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: block + startIndex, count: count))
    }

    /// The run's bytes, copied.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Where the run's bytes are, for libmicrohttpd: valid while the run is alive and shared,
    /// which a response holding a reference to it guarantees.
    var address: UnsafeRawPointer { UnsafeRawPointer(block + startIndex) }

    /// Replaces the bytes in `range` with `replacement`, moving the bytes after it: those
    /// before keep their indices. Only for the holder of the only reference, as every edit is.
    /// Moves the run to a larger block, with room to spare, when it outgrows its own.
    public func replaceSubrange(_ range: Range<Int>, with replacement: UnsafeBufferPointer<UInt8>) {
        precondition(range.lowerBound >= startIndex && range.upperBound <= endIndex, "replaceSubrange: range out of bounds")
        let end = endIndex - range.count + replacement.count
        if end > capacity {
            let larger = end + end / 4
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            (moved + startIndex).initialize(from: block + startIndex, count: range.lowerBound - startIndex)
            (moved + range.lowerBound + replacement.count).initialize(from: block + range.upperBound, count: endIndex - range.upperBound)
            block.deallocate()
            block = moved
            capacity = larger
        } else if range.count != replacement.count {
            // The two regions overlap: memmove, not a copy.
            memmove(block + range.lowerBound + replacement.count, block + range.upperBound, endIndex - range.upperBound)
        }
        // `initialize`, not `update`: bytes need no deinitializing, and those in the room may never have been written.
        if let base = replacement.baseAddress { (block + range.lowerBound).initialize(from: base, count: replacement.count) }
        endIndex = end
    }

    /// Replaces the bytes before `index` with `prefix`, which ends at `index`: the bytes from
    /// `index` on keep their indices and do not move. Only for the holder of the only
    /// reference. False, with nothing changed, when `prefix` is longer than the room before
    /// `index`.
    public func replacePrefix(upTo index: Int, with prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        precondition(index >= startIndex && index <= endIndex, "replacePrefix: index out of bounds")
        guard prefix.count <= index else { return false }
        startIndex = index - prefix.count
        if let base = prefix.baseAddress { (block + startIndex).initialize(from: base, count: prefix.count) }
        return true
    }
}
