/// A session's recent events, bounded by dropping whole revisions from the front.
///
/// Whole revisions go so that "events after r" is either complete or refused, never partial.
///
/// Two costs shape how the events are kept:
/// - Memory. An `Event` value is 80 bytes, and its ids and params make it more; packed in
///   their binary form (Event+Bytes.swift) the events of a push take about 20. Most
///   sessions keep only a few events, and a long-lived one keeps `eventsKept` (128 by default).
/// - Copies. Sessions are values, and every change is made on a copy that shares storage
///   with the stored session (`Session.apply`, the store's update), so one array of every
///   kept event would be copied whole on every change. The events are kept in chunks of
///   `chunkSize` instead: full chunks never change and every copy shares them; a change
///   copies only the last one.
///
/// The events are decoded only when they are read back (a client resuming its event
/// stream, an export); a change hands its new events to subscribers as values.
/// Storage writes the packed bytes as they are (`forEachRecord(after:)`).
struct EventHistory: Equatable, Sendable {
    private static let chunkSize = 16

    /// The kept events, oldest first, in chunks: each event is its length (LEB128) then its
    /// binary form. Full chunks of `chunkSize` events, never changed once sealed; none while
    /// a session has had fewer events than that, which is most sessions.
    private var sealed: [[UInt8]] = []
    /// The newest events, fewer than `chunkSize`: the chunk a change appends to, in place
    /// unless a copy of the session shares it.
    private var tail: [UInt8] = []
    /// Every event of this revision and earlier has been dropped; 0 while nothing has.
    private(set) var droppedThrough = 0
    // The counts are stored narrow, 8 bytes less in every session: `--events-kept` is at most
    // 1,000,000, and a chunk of 16 events is far below 4 GB.
    private var storedCount: Int32 = 0
    private var storedHead: UInt32 = 0
    private var storedTailCount: UInt8 = 0
    /// The bytes of the sealed chunks, kept as they change so that `byteCount`, asked on every
    /// durable write, does not walk them. 32 bits sit in padding (no byte more a session);
    /// added and taken away wrapping, so it is exact for any history below 4 GB.
    private var sealedBytes: UInt32 = 0

    /// How many events are kept.
    private(set) var count: Int {
        get { Int(storedCount) }
        set { storedCount = Int32(newValue) }
    }

    /// Where the first kept event starts in the first chunk (`sealed[0]`, or the tail when
    /// nothing is sealed): the events before it are dropped.
    private var head: Int {
        get { Int(storedHead) }
        set { storedHead = UInt32(newValue) }
    }

    /// How many events the tail holds, dropped ones included.
    private var tailCount: Int {
        get { Int(storedTailCount) }
        set { storedTailCount = UInt8(newValue) }
    }

    init() {}

    /// A history read back from a snapshot, which the caller has checked is in revision order.
    init(restoring events: [Event], droppedThrough: Int) {
        append(events)
        self.droppedThrough = droppedThrough
    }

    /// The kept events, oldest first.
    var events: [Event] {
        var all: [Event] = []
        all.reserveCapacity(count)
        forEach { all.append($0) }
        return all
    }

    /// Calls `body` with each kept event, oldest first.
    func forEach(_ body: (Event) throws -> Void) rethrows {
        for record in records() { try body(Self.decode(record)) }
    }

    /// Calls `body` with the revision and binary form of each kept event above `revision`,
    /// oldest first: what a durable write adds to the events it has stored.
    func forEachRecord<Failure: Error>(
        after revision: Int, _ body: (Int, ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        for record in records(skippingChunksThrough: revision) {
            let recordRevision = Self.revision(of: record)
            if recordRevision > revision { try body(recordRevision, record) }
        }
    }

    /// The bytes the kept events take packed, length prefixes included.
    var byteCount: Int {
        Int(sealedBytes) + tail.count - head
    }

    /// Adds `new` (one change's events, or none) and drops the oldest whole revisions past
    /// `limit` events or `byteLimit` bytes (`byteCount`), keeping the newest revision whole
    /// however many events or bytes it has.
    ///
    /// Never split a revision: the rest of the one the cut falls in goes too. Never drop the
    /// newest: a batch may make more events than are kept (100 steps, a pop with a result
    /// two events each), and dropping it left a client that had every revision before it with
    /// nothing to read but 410 `history_expired`. Until the next change drops it, the history
    /// holds that one revision over the limit.
    mutating func append(_ new: [Event], keeping limit: Int, bytes byteLimit: Int = .max) {
        append(new)
        let limit = max(limit, 0)
        guard count > limit || byteCount > byteLimit, let newest = new.last?.revision ?? newestRevision else { return }
        var surplus = (events: count - limit, bytes: byteCount - byteLimit)
        var cut = 0
        var dropped = 0
        for record in records() {
            let revision = Self.revision(of: record)
            if revision == newest { break }
            // Past the surplus, only the rest of the last revision cut into.
            if surplus.events <= 0 && surplus.bytes <= 0 && revision != dropped { break }
            cut += 1
            surplus.events -= 1
            surplus.bytes -= ByteWriter.lengthOfCount(record.count) + record.count
            dropped = revision
        }
        guard cut > 0 else { return }
        droppedThrough = dropped
        dropFirst(cut)
    }

    /// The revision of the newest kept event; nil when none is kept.
    private var newestRevision: Int? {
        var newest: Int?
        for record in records() { newest = Self.revision(of: record) }
        return newest
    }

    private mutating func append(_ new: [Event]) {
        // A session navigated one step at a time (several events, one more a change) gets room
        // in its tail for a few more; one set up by a batch and then left, as most are, keeps
        // its tail exact (memory per session).
        let roomy = new.count == 1 && tailCount >= 2
        // Packed on the stack, then copied into the tail: an event takes about 20 bytes, and
        // one larger than the scratch moves to a block of its own.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch in
            for event in new {
                var packed = ByteWriter(scratch: scratch)
                packed.write(event)
                packed.withBytes { appendRecord($0, roomy: roomy) }
            }
        }
        count += new.count
    }

    /// Room a roomy tail is given past what it needs: three or so events of a push or a pop.
    private static let tailRoom = 64

    /// Adds one event's binary form, after its length, to the tail, sealing a full one first.
    private mutating func appendRecord(_ record: UnsafeBufferPointer<UInt8>, roomy: Bool) {
        if tailCount == Self.chunkSize {
            sealed.append(tail)
            sealedBytes &+= UInt32(truncatingIfNeeded: tail.count)
            tail = []
            tailCount = 0
        }
        // The length prefix is one byte below 128, two below 16 K; more is reserved for larger ones.
        let prefix = record.count < 0x80 ? 1 : record.count < 0x4000 ? 2 : 10
        let needed = tail.count + prefix + record.count
        tailCount += 1
        // In place when the tail has the room: a push or a pop then writes its event's bytes and
        // nothing else, where copying the whole tail into a new block read up to 16 events out
        // of memory (docs/performance.md, item 80). A tail a copy of the session shares is
        // copied by `append` at the capacity it has, which is no more than this gave it.
        if needed <= tail.capacity {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { length in
                let written = ByteWriter.put(UInt64(record.count), at: length.baseAddress!)
                tail.append(contentsOf: UnsafeBufferPointer(rebasing: length[..<written]))
            }
            tail.append(contentsOf: record)
            return
        }
        // Otherwise copied to the size it needs (plus room when roomy) rather than grown by
        // doubling: a tail grown by doubling would leave most sessions' tails half empty.
        // Laid out by hand in the new array: through a second writer it was copied twice.
        tail = tail.withUnsafeBufferPointer { old in
            [UInt8](unsafeUninitializedCapacity: needed + (roomy ? Self.tailRoom : 0)) { buffer, initialized in
                var at = buffer.baseAddress!
                if let start = old.baseAddress {
                    at.initialize(from: start, count: old.count)
                    at += old.count
                }
                at += ByteWriter.put(UInt64(record.count), at: at)
                if let start = record.baseAddress {
                    at.initialize(from: start, count: record.count)
                    at += record.count
                }
                initialized = at - buffer.baseAddress!
            }
        }
    }

    private mutating func dropFirst(_ dropped: Int) {
        // `head` never sits at the end of a sealed chunk: one dropped whole goes at once.
        var offset = head
        for _ in 0..<dropped {
            offset = Self.end(ofRecordAt: offset, in: sealed.first ?? tail)
            if let first = sealed.first, offset == first.count {
                sealedBytes &-= UInt32(truncatingIfNeeded: first.count)
                sealed.removeFirst()
                offset = 0
            }
        }
        head = offset
        count -= dropped
        compactFirstChunk()
        if count == 0 {
            sealed = []
            sealedBytes = 0
            tail = []
            tailCount = 0
            head = 0
        }
    }

    /// Dropped events past which the first chunk is copied without them.
    private static let compactionBytes = 4096

    /// Copies the first chunk without its dropped events once they take `compactionBytes`.
    ///
    /// A chunk goes only once all its events are dropped, and events carrying results or
    /// states can be large: a chunk of 16 held megabytes the history no longer counted
    /// (`byteCount`), past what `Limits.maxSessionBytes` trims it to. Events of a push or a
    /// pop are about 20 bytes, so a chunk of them never gets here.
    private mutating func compactFirstChunk() {
        guard head >= Self.compactionBytes else { return }
        if sealed.isEmpty {
            let dropped = tailCount - count
            tail = Array(tail[head...])
            tailCount -= dropped
        } else {
            sealed[0] = Array(sealed[0][head...])
            sealedBytes &-= UInt32(truncatingIfNeeded: head)
        }
        head = 0
    }

    /// The bytes the history's chunks take, dropped events still in them included: what it
    /// holds in memory, where `byteCount` is what it keeps.
    var heldBytes: Int {
        Int(sealedBytes) + tail.count
    }

    /// The kept events with a revision above `revision`.
    func events(after revision: Int, current: Int) throws(PresentationError) -> [Event] {
        try checkKept(after: revision, current: current)
        var newer: [Event] = []
        for record in records(skippingChunksThrough: revision) where Self.revision(of: record) > revision {
            newer.append(Self.decode(record))
        }
        return newer
    }

    /// Throws what `events(after:current:)` would: `.revisionAhead` past `current`,
    /// `.historyExpired` when some of the events after `revision` were dropped.
    func checkKept(after revision: Int, current: Int) throws(PresentationError) {
        guard revision <= current else { throw .revisionAhead(current: current) }
        // Every revision has events, so when `revision` is below `droppedThrough`, those of
        // `droppedThrough` itself are missing; otherwise nothing after `revision` was dropped.
        guard revision >= droppedThrough || droppedThrough == 0 else {
            throw .historyExpired(oldest: droppedThrough)
        }
    }

    /// Equal when the same events are kept and the same were dropped, however they are chunked:
    /// equal events have equal binary forms.
    static func == (left: EventHistory, right: EventHistory) -> Bool {
        left.droppedThrough == right.droppedThrough && left.count == right.count
            && left.records().elementsEqual(right.records())
    }

    // MARK: Reading the packed events

    /// The kept events' binary forms, oldest first; when `revision` is given, from the first
    /// one above it.
    ///
    /// Its chunk is looked for from the newest back: a durable write asks for the events
    /// after the revision before its own, which are in the last chunk or two. Looked for from
    /// the oldest, every write walked all of a session's chunks, so that durable writes grew
    /// dearer as sessions aged: 40% slower after a minute of push/pop (docs/performance.md,
    /// item 55). Chunks are in revision order, so both ways find the same one. Within it, the
    /// records at or below `revision` are passed over in place (`offset(after:in:from:)`).
    private func records(skippingChunksThrough revision: Int? = nil) -> Records {
        guard let revision else { return Records(sealed: sealed, tail: tail, chunk: 0, offset: head) }
        // Chunk `sealed.count` is the tail, which may be empty (then it starts after anything).
        var first = sealed.count
        while first > 0 {
            let chunk = first < sealed.count ? sealed[first] : tail
            if !chunk.isEmpty, Self.revision(of: Self.record(at: 0, in: chunk)) <= revision { break }
            first -= 1
        }
        let chunk = first < sealed.count ? sealed[first] : tail
        let offset = Self.offset(after: revision, in: chunk, from: first == 0 ? head : 0)
        return Records(sealed: sealed, tail: tail, chunk: first, offset: offset)
    }

    /// Where the first record above `revision` starts in `chunk`, from `offset` on; the chunk's
    /// end when there is none. Read through a pointer: through `record(at:in:)` and a
    /// `ByteReader` a record, a durable write's search of its chunk cost 3,000 instructions.
    private static func offset(after revision: Int, in chunk: [UInt8], from offset: Int) -> Int {
        chunk.withUnsafeBufferPointer { bytes in
            var start = offset
            while start < bytes.count {
                var at = start
                let length = Int(leb128(bytes, &at))
                // The record starts with its revision, zigzag-encoded (`ByteWriter.integer`).
                var revisionAt = at
                let raw = leb128(bytes, &revisionAt)
                if Int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))) > revision { return start }
                start = at + length
            }
            return bytes.count
        }
    }

    /// The LEB128 number at `at`, which moves past it; the chunk is ours and well formed.
    private static func leb128(_ bytes: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private struct Records: Sequence, IteratorProtocol {
        let sealed: [[UInt8]]
        let tail: [UInt8]
        /// The chunk being read: an index into `sealed`, or `sealed.count` for the tail.
        var chunk: Int
        var offset: Int

        mutating func next() -> ArraySlice<UInt8>? {
            while chunk <= sealed.count {
                let bytes = chunk < sealed.count ? sealed[chunk] : tail
                if offset < bytes.count {
                    let record = EventHistory.record(at: offset, in: bytes)
                    offset = record.endIndex
                    return record
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    /// The binary form of the event whose length prefix starts at `offset`.
    private static func record(at offset: Int, in chunk: [UInt8]) -> ArraySlice<UInt8> {
        var reader = ByteReader(chunk[offset...])
        guard let length = try? reader.count() else { preconditionFailure("an event history's chunk is corrupt") }
        let start = reader.position
        return chunk[start..<start + length]
    }

    private static func end(ofRecordAt offset: Int, in chunk: [UInt8]) -> Int {
        record(at: offset, in: chunk).endIndex
    }

    /// An event's revision, which its binary form starts with.
    private static func revision(of record: ArraySlice<UInt8>) -> Int {
        var reader = ByteReader(record)
        guard let revision = try? reader.integer() else { preconditionFailure("an event history's record is corrupt") }
        return revision
    }

    private static func decode(_ record: ArraySlice<UInt8>) -> Event {
        var reader = ByteReader(record)
        guard let event = try? reader.event(), reader.isAtEnd else {
            preconditionFailure("an event history's record is corrupt")
        }
        return event
    }
}
