/// The replies recorded under idempotency keys for one session, bounded, oldest evicted first.
///
/// It lives in the session so that a reply is recorded in the same update, under the same lock,
/// as the change it reports; the domain never looks inside the replies.
public struct ReplyLog: Hashable, Sendable {
    private struct Entry: Hashable, Sendable {
        var key: String
        var reply: RecordedReply

        /// What the entry holds, for `Limits.replyBytesKept`.
        var byteCount: Int { key.utf8.count + reply.body.count + reply.fingerprint.count }
    }

    /// Oldest first; a few dozen at most, so a linear search is fine.
    private var entries: [Entry] = []

    public init() {}

    public var count: Int { entries.count }

    /// Every kept reply and its key, oldest first: what storage writes down.
    public var recorded: [(key: String, reply: RecordedReply)] {
        entries.map { ($0.key, $0.reply) }
    }

    /// A log read back from storage, oldest first; a later reply under a repeated key wins.
    public init(restoring recorded: [(key: String, reply: RecordedReply)]) {
        for (key, reply) in recorded {
            record(reply, for: key, keeping: .max, bytes: .max)
        }
    }

    public func reply(for key: String) -> RecordedReply? {
        entries.first { $0.key == key }?.reply
    }

    /// Records `reply` as the newest, replacing an older one under the same key, and keeps the
    /// newest `keeping`, fewer when they hold more than `bytes` (the newest is kept regardless).
    public mutating func record(_ reply: RecordedReply, for key: String, keeping: Int, bytes: Int = .max) {
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, reply: reply))
        if entries.count > max(keeping, 0) {
            entries.removeFirst(entries.count - max(keeping, 0))
        }
        // Summed when a reply is recorded, not kept: a stored total would cost every session
        // its bytes, and keyed changes are the few.
        var held = entries.reduce(0) { $0 + $1.byteCount }
        var dropped = 0
        while held > bytes, entries.count - dropped > 1 {
            held -= entries[dropped].byteCount
            dropped += 1
        }
        if dropped > 0 { entries.removeFirst(dropped) }
    }
}
