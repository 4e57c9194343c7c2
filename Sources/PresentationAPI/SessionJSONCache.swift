import JSON
import MicroHTTP
import Presentation
import Synchronization

/// Each session's JSON as last written, by revision, so that reading an unchanged session is a
/// copy, and a push, a pop, a present or a dismiss answers with the last revision's bytes
/// edited (`TreeLayout`).
///
/// A revision names exactly one tree (it is the session's ETag), so bytes kept for an id and a
/// revision never go stale: a newer revision replaces them, and a read that finds an older one
/// writes afresh. Bounded by count, oldest entries forgotten first, so that memory stays flat
/// however many sessions there are; sharded so that readers of different sessions rarely meet.
final class SessionJSONCache: Sendable {
    /// A class, changed where it is under its shard's lock: through a dictionary's subscript a
    /// struct entry was changed in nested accessors that allocated three frames a change.
    private final class Entry {
        private(set) var revision: Int
        /// The JSON, in a block with room before it for the next revision's head and after it
        /// for more screens. Nil while a change makes the next revision's from it.
        private(set) var json: SharedBytes?
        /// Where the JSON keeps the topmost stack's path (its offsets are the block's), for
        /// making the next revision's.
        private var layout: TreeLayout
        /// The read's answer as libmicrohttpd's response, built by the first read that finds
        /// this JSON and sent as it is by the reads after it.
        var prepared: HTTPPreparedResponse?

        init(revision: Int, json: SharedBytes, layout: TreeLayout) {
            self.revision = revision
            self.json = json
            self.layout = layout
        }

        /// Holds `json` from now on, if it is of a newer revision than what it holds.
        func replace(revision: Int, json: SharedBytes, layout: TreeLayout) {
            guard revision > self.revision else { return }
            self.revision = revision
            self.json = json
            self.layout = layout
            prepared = nil
        }

        /// The JSON if it is `revision`'s; else, for a change (`edit`) to `revision`, the JSON
        /// and layout of the revision before, taken out of the entry rather than shared, so
        /// that once no response is sending them the change may edit them in place.
        func lookUp(_ revision: Int, edit: Bool) -> (kept: SharedBytes?, previous: SharedBytes?, layout: TreeLayout) {
            if self.revision == revision { return (json, nil, TreeLayout()) }
            guard edit, self.revision == revision - 1, let previous = json.take() else { return (nil, nil, TreeLayout()) }
            prepared = nil
            defer { layout = TreeLayout() }
            return (nil, previous, layout)
        }
    }

    private struct State {
        var entries: [SessionID: Entry] = [:]
        /// Insertion order, for forgetting the oldest; `head` is the first still counted.
        var order: [SessionID] = []
        var head = 0
    }

    /// A class only because an array cannot hold a `Mutex` directly.
    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    private static let shardCount = 16
    private let shards: [Shard]
    private let capacityPerShard: Int

    /// `capacity` sessions are kept at most (about 1.5 KB each for a small tree, with the
    /// tree's room for pushes).
    init(capacity: Int) {
        shards = (0..<Self.shardCount).map { _ in Shard() }
        capacityPerShard = max(1, capacity / Self.shardCount)
    }

    /// The session's JSON (`JSONWriter.write(session:)` with no extras) for a read, written
    /// only when not kept, and kept for the reads and changes that follow.
    func json(for session: Session) -> SharedBytes {
        json(for: session, edit: nil, adding: true)
    }

    /// The same for a change's answer. `edit`: what the change, a single step, did to the end
    /// of the tree, so that the JSON is made from the previous revision's when that is kept
    /// (`TreeLayout`; debug builds check it against writing it whole).
    ///
    /// Such an answer is kept even for a session nobody reads, since its next change is
    /// likely another such step; other changes only replace what a session being read has
    /// kept, so that sessions set up by a batch and never read again (most of them) take no
    /// room.
    func json(for session: Session, changedBy edit: TreeLayout.Edit?) -> SharedBytes {
        json(for: session, edit: edit, adding: edit != nil)
    }

    private func json(for session: Session, edit: TreeLayout.Edit?, adding: Bool) -> SharedBytes {
        let shard = shard(for: session.id)
        var kept: SharedBytes?
        var previous: SharedBytes?
        var layout = TreeLayout()
        shard.state.withLock { state in
            if let found = state.entries[session.id]?.lookUp(session.revision, edit: edit != nil) {
                (kept, previous, layout) = found
            }
        }
        if let kept { return kept }
        if let edit, previous != nil {
            // A response still sending the previous revision's answer shares it: edit a copy.
            if !isKnownUniquelyReferenced(&previous), let shared = previous {
                previous = SharedBytes(copying: shared)
            }
            if let json = previous, layout.apply(edit, to: json, for: session) {
                assert(json.bytes == Self.written(session).json.bytes, "the JSON edited in place is not the written one")
                keep(json, layout, at: session.revision, for: session.id, in: shard, adding: adding)
                return json
            }
        }
        let (json, written) = Self.written(session)
        keep(json, written, at: session.revision, for: session.id, in: shard, adding: adding)
        return json
    }

    /// Room kept before a session's JSON for heads longer than its own (a revision or an id
    /// with more digits), and after it for the screens of the pushes that follow.
    private static let headroom = 32
    private static let tailroom = 256

    /// The session written whole, in a block with room on either side, and its layout there.
    private static func written(_ session: Session) -> (json: SharedBytes, layout: TreeLayout) {
        var writer = JSONWriter(capacity: 2048)
        var layout = TreeLayout()
        writer.write(session: session, layout: &layout)
        let json = writer.withWrittenBytes { SharedBytes(copying: $0, headroom: headroom, tailroom: tailroom) }
        layout.shift(by: headroom)
        return (json, layout)
    }

    /// The answer to a read of the session: its JSON, with the headers of every JSON answer
    /// and its ETag, built as libmicrohttpd's response once per revision. A session read again
    /// and again at one revision (a client polling, several screens following one session)
    /// costs its readers a lookup, not a response each; the response sends the kept JSON
    /// itself, without a copy.
    func readResponse(for session: Session) -> HTTPResponse {
        let shard = shard(for: session.id)
        let hit = shard.state.withLock { state -> (json: SharedBytes, prepared: HTTPPreparedResponse?)? in
            guard let entry = state.entries[session.id], entry.revision == session.revision, let json = entry.json else { return nil }
            return (json, entry.prepared)
        }
        if let prepared = hit?.prepared { return prepared.response }
        let json = hit?.json ?? json(for: session)
        let response = HTTPResponse.json(json, revision: session.revision)
        guard let prepared = HTTPPreparedResponse(response) else { return response }
        shard.state.withLock { state in
            // Kept only beside the JSON it was built from: a newer revision may have come meanwhile.
            if let entry = state.entries[session.id], entry.json === json { entry.prepared = prepared }
        }
        return prepared.response
    }

    /// The revision kept for `id`, if any.
    func keptRevision(of id: SessionID) -> Int? {
        shard(for: id).state.withLock { $0.entries[id]?.revision }
    }

    /// How many sessions have JSON kept.
    var count: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.entries.count } }
    }

    /// Forgets a deleted session at once rather than when it ages out.
    func remove(_ id: SessionID) {
        _ = shard(for: id).state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func keep(
        _ json: SharedBytes, _ layout: TreeLayout, at revision: Int, for id: SessionID, in shard: Shard, adding: Bool
    ) {
        let capacity = capacityPerShard
        shard.state.withLock { state in
            // Two writers of different revisions may race here: the newer one wins.
            if let kept = state.entries[id] { return kept.replace(revision: revision, json: json, layout: layout) }
            guard adding else { return }
            state.entries[id] = Entry(revision: revision, json: json, layout: layout)
            state.order.append(id)
            while state.entries.count > capacity, state.head < state.order.count {
                state.entries.removeValue(forKey: state.order[state.head])
                state.head += 1
            }
            // Deleted sessions leave their ids behind in `order`; drop them now and then.
            if state.order.count - state.head > 2 * capacity {
                var seen = Set<SessionID>()
                state.order = state.order[state.head...].filter { state.entries[$0] != nil && seen.insert($0).inserted }
                state.head = 0
            } else if state.head > capacity {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    private func shard(for id: SessionID) -> Shard {
        shards[id.shardKey % Self.shardCount]
    }
}
