/// A growable run of bytes written through a pointer, with one owner: what `JSONWriter` and
/// the binary `ByteWriter` (Presentation) write into.
///
/// Noncopyable, so that it owns its memory outright and frees it once. Every write is a bounds
/// check and a store, with none of the uniqueness and capacity checks an `[UInt8]` makes on
/// each append (they were a third of the time spent writing a session's JSON, and most of a
/// stored session's encoding). `bytes` copies the run out once, at the end.
///
/// Its members are inlinable: the writers' small writes are a few hundred a response, and as
/// calls from another module each cost more than the bytes it wrote.
public struct ByteBuffer: ~Copyable {
    /// Where the bytes are; moves when the buffer grows.
    @usableFromInline var storage: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written so far: the offset the next byte goes to.
    public var count = 0
    /// False while the bytes are in the caller's scratch memory (`init(scratch:)`), which is
    /// not this buffer's to free.
    @usableFromInline var ownsStorage = true

    /// `capacity` is a guess at the size in bytes, to grow the buffer fewer times.
    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        storage = .allocate(capacity: self.capacity)
    }

    /// Writes into `scratch` until it is full, then moves to memory of its own. For a short
    /// run written, read and dropped within one call (an event's binary form, an answer's
    /// head), in memory the caller owns for that call, such as
    /// `withUnsafeTemporaryAllocation`'s: a change wrote two such runs, and allocating and
    /// freeing a block for each cost more than writing it. The buffer must not outlive `scratch`.
    public init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        precondition(scratch.count > 0, "scratch memory must have room")
        storage = scratch.baseAddress!
        capacity = scratch.count
        ownsStorage = false
    }

    deinit {
        if ownsStorage { storage.deallocate() }
    }

    /// What has been written, as an array of its exact size.
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Calls `body` with what has been written, valid only during the call.
    @inlinable
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Where the next `extra` bytes go, growing the buffer when they do not fit; the caller
    /// writes them there and adds what it wrote to `count`.
    @inlinable @inline(__always)
    public mutating func room(for extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > capacity { grow(toHold: count + extra) }
        return storage + count
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        storage[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let base = run.baseAddress, !run.isEmpty else { return }
        room(for: run.count).update(from: base, count: run.count)
        count += run.count
    }

    /// Moves the bytes to a block of at least `needed`, twice the size at least.
    @usableFromInline
    mutating func grow(toHold needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: storage, count: count)
        if ownsStorage { storage.deallocate() }
        storage = moved
        capacity = larger
        ownsStorage = true
    }
}
