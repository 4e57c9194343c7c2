/// What a journal has done since it opened, and what it holds now: for an operator's metrics,
/// where group commit shows as fewer transactions and syncs than writes.
public struct JournalStatistics: Sendable, Equatable {
    /// Transactions committed (or tried).
    public var transactions: Int
    /// Writes (saves, removals, lease updates) that went through a transaction.
    public var writes: Int
    /// Flushes to the disk, each making every transaction committed before it durable.
    public var syncs: Int
    /// Writes waiting for the next transaction while the current one commits.
    public var queuedWrites: Int
    /// Bytes of stored sessions, as the store's `maxStoredBytes` counts them.
    public var storedBytes: Int
    /// Heap the storage engine holds for itself (SQLite's page cache and statements): the part
    /// of the server's memory that is the storage's, not the sessions'.
    public var engineMemoryBytes: Int
    /// True once a flush to the disk failed: every durable write is refused from then until a
    /// restart (what the disk holds is no longer known), so the server is not healthy.
    public var writesStopped: Bool

    public init(
        transactions: Int, writes: Int, syncs: Int, queuedWrites: Int, storedBytes: Int, engineMemoryBytes: Int,
        writesStopped: Bool = false
    ) {
        self.writesStopped = writesStopped
        self.transactions = transactions
        self.writes = writes
        self.syncs = syncs
        self.queuedWrites = queuedWrites
        self.storedBytes = storedBytes
        self.engineMemoryBytes = engineMemoryBytes
    }
}
