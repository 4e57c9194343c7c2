import Synchronization

/// The bytes of request bodies held while they arrive, over every connection, and their bound
/// (`--max-buffered-body-bytes`).
///
/// A body is kept whole in memory until its request is answered, and `maxBodyBytes` bounds
/// one. Nothing bounded them together: clients that each send all but the last byte of a
/// largest body hold it until their connection times out, and the connection limit let 4,096
/// of them hold 4 GiB (300 such clients took the server from 18 MB to 484 MB). Past this bound
/// a chunk is dropped, with whatever its body held, and its request answered 503 once its
/// body has arrived (`HTTPRefusal.bodyBufferFull`).
///
/// Counted as bytes arrive, not as a `Content-Length` announces them: else a client could take
/// the whole bound by announcing bodies it never sends.
///
/// Shared, so that metrics can read it.
public final class BufferedBodies: Sendable {
    /// Bytes of bodies held at once, at most.
    public let limit: Int
    private let held = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// The bytes held now, and the requests refused for want of room since the start.
    public var counts: (held: Int, refused: Int) {
        (held.load(ordering: .relaxed), refused.load(ordering: .relaxed))
    }

    /// Counts `count` more bytes as held, if all stay within `limit`; false, counting nothing,
    /// if not. One atomic add when they fit, the common case: bytes that do not are taken back
    /// at once, so that for a moment they can make another chunk that would have fitted be
    /// refused, never let one through past the bound.
    func reserve(_ count: Int) -> Bool {
        guard held.add(count, ordering: .relaxed).newValue > limit else { return true }
        held.subtract(count, ordering: .relaxed)
        return false
    }

    /// Counts a request answered 503 `body_buffer_full`: counted when answered, not when a
    /// chunk found no room, since such a body may still prove too large (413) or never end.
    func countRefusal() {
        refused.add(1, ordering: .relaxed)
    }

    /// Gives back `count` bytes `reserve` counted.
    func release(_ count: Int) {
        held.subtract(count, ordering: .relaxed)
    }
}
