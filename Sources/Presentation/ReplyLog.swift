/// The replies recorded under idempotency keys for one session, bounded, oldest evicted first.
///
/// It lives in the session so that a reply is recorded in the same update, under the same lock,
/// as the change it reports; the domain never looks inside the replies.
public struct ReplyLog: Hashable, Sendable {
    private struct Entry: Hashable, Sendable {
        var key: String
        var reply: RecordedReply
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
            record(reply, for: key, keeping: .max)
        }
    }

    public func reply(for key: String) -> RecordedReply? {
        entries.first { $0.key == key }?.reply
    }

    /// Records `reply` as the newest, replacing an older one under the same key, and keeps the newest `keeping`.
    public mutating func record(_ reply: RecordedReply, for key: String, keeping: Int) {
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, reply: reply))
        if entries.count > max(keeping, 0) {
            entries.removeFirst(entries.count - max(keeping, 0))
        }
    }
}
