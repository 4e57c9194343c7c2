import Foundation
import Presentation
import Synchronization
import Testing

@Suite("In-memory store")
struct StoreTests {
    static let push = [Step(operation: .push(Fixture.spec("detail")))]

    @Test("Creating a session stores it under the injected id and token")
    func create() throws {
        let store = IDSequence.store()
        let created = try store.create(root: Fixture.spec("home"), now: Fixture.created)
        let session = created.session
        #expect(session.id == IDSequence.id(1) && created.token == Fixture.token)
        #expect(session.tokenDigest == SessionTokenDigest(of: Fixture.token))
        #expect(session.revision == 1 && session.createdAt == Fixture.created)
        #expect(store.count == 1)
        #expect(store.session(session.id) == session)
        #expect(store.session(IDSequence.id(2)) == nil)
        #expect(store.limits == .default)
    }

    @Test("An update commits the change and returns the body's value")
    func update() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let change = try store.update(id) { session in
            try session.apply(Self.push, at: Fixture.time(of: 2), limits: store.limits)
        }
        #expect(change.revision == 2)
        #expect(store.session(id)?.revision == 2)
        #expect(store.session(id)?.shape == [["home", "detail"]])
    }

    @Test("An update of a missing session throws session not found")
    func updateMissing() {
        let store = IDSequence.store()
        #expect(throws: PresentationError.sessionNotFound) {
            try store.update(IDSequence.id(9)) { _ in 0 }
        }
    }

    @Test("A throwing update leaves the stored session exactly as it was and tells no watcher")
    func throwingUpdate() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        let watch = try #require(store.watch(id, log.append))
        let before = store.session(id)
        #expect(throws: Refusal()) {
            try store.update(id) { session in
                _ = try session.apply(Self.push, at: Fixture.time(of: 2), limits: store.limits)
                session.replies.record(
                    RecordedReply(fingerprint: [], status: 200, body: [], revision: 2), for: "k", keeping: 32)
                throw Refusal()
            }
        }
        #expect(throws: PresentationError.cannotPopRoot) {
            try store.update(id) { session in
                try session.apply([Step(operation: .popToRoot)], at: Fixture.time(of: 2), limits: store.limits)
            }
        }
        #expect(store.session(id) == before)
        #expect(log.all.isEmpty)
        watch.cancel()
    }

    @Test("An update that keeps the revision is committed without telling watchers")
    func updateWithoutRevision() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        let reply = RecordedReply(fingerprint: [7], status: 409, body: Array("no".utf8), revision: 1)
        try store.update(id) { session in
            session.replies.record(reply, for: "key", keeping: store.limits.repliesKept)
        }
        #expect(store.session(id)?.replies.reply(for: "key") == reply)
        #expect(log.all.isEmpty)
    }

    @Test("Watchers hear each new revision and the deletion, and nothing after cancelling")
    func watchers() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let first = ChangeLog()
        let second = ChangeLog()
        let firstWatch = try #require(store.watch(id, first.append))
        _ = try #require(store.watch(id, second.append))
        try store.update(id) { _ = try $0.apply(Self.push, at: Fixture.time(of: 2), limits: store.limits) }
        firstWatch.cancel()
        firstWatch.cancel()
        try store.update(id) { _ = try $0.apply(Self.push, at: Fixture.time(of: 3), limits: store.limits) }
        #expect(try store.delete(id))
        #expect(first.all == [.revised(2)])
        #expect(second.all == [.revised(2), .revised(3), .deleted])
    }

    @Test("A watcher may call back into the store")
    func reentrantWatcher() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        let watch = store.watch(id) { change in
            if case .revised = change, let session = store.session(id) {
                log.append(.revised(session.revision))
            }
        }
        try store.update(id) { _ = try $0.apply(Self.push, at: Fixture.time(of: 2), limits: store.limits) }
        #expect(log.all == [.revised(2)])
        watch?.cancel()
    }

    @Test("A watcher can cancel its own watch from inside the call")
    func selfCancellingWatcher() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        let holder = WatchHolder()
        holder.set(
            store.watch(id) { change in
                log.append(change)
                holder.cancel()
            })
        try store.update(id) { _ = try $0.apply(Self.push, at: Fixture.time(of: 2), limits: store.limits) }
        try store.update(id) { _ = try $0.apply(Self.push, at: Fixture.time(of: 3), limits: store.limits) }
        #expect(log.all == [.revised(2)])
    }

    @Test("Deleting removes the session once, and a deleted session cannot be watched or updated")
    func delete() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        #expect(try store.delete(id))
        #expect(try !store.delete(id))
        #expect(store.count == 0)
        #expect(store.session(id) == nil)
        #expect(store.watch(id, { _ in }) == nil)
        #expect(throws: PresentationError.sessionNotFound) { try store.update(id) { _ in () } }
    }

    @Test("The session limit is enforced and frees up on deletion")
    func maxSessions() throws {
        let store = IDSequence.store(limits: Limits(maxSessions: 2))
        let first = try store.create(root: Fixture.spec("a"), now: Fixture.created)
        _ = try store.create(root: Fixture.spec("b"), now: Fixture.created)
        #expect(throws: PresentationError.tooManySessions(limit: 2)) {
            try store.create(root: Fixture.spec("c"), now: Fixture.created)
        }
        #expect(store.count == 2)
        #expect(try store.delete(first.session.id))
        #expect(try store.create(root: Fixture.spec("c"), now: Fixture.created).session.id == IDSequence.id(3))
        #expect(store.count == 2)
    }

    @Test("Listing pages through sessions in id order")
    func listing() throws {
        let store = IDSequence.store()
        let ids = try (0..<5).map { _ in try store.create(root: Fixture.spec("a"), now: Fixture.created).session.id }
        #expect(store.sessions(after: nil, limit: 2).map(\.id) == Array(ids[0..<2]))
        #expect(store.sessions(after: ids[1].rawValue, limit: 2).map(\.id) == Array(ids[2..<4]))
        #expect(store.sessions(after: ids[3].rawValue, limit: 10).map(\.id) == [ids[4]])
        #expect(store.sessions(after: ids[4].rawValue, limit: 10).isEmpty)
        #expect(try store.delete(ids[2]))
        #expect(store.sessions(after: ids[1].rawValue, limit: 1).map(\.id) == [ids[3]])
    }

    /// Ids keep 128 bits, so most 22-character spellings name no id; a client may still
    /// page from one, and gets the ids whose characters sort after it.
    @Test("Listing continues from any spelling of 22 characters, in the ids' character order")
    func listingFromAnySpelling() throws {
        let store = InMemorySessionStore()
        let ids = try (0..<200).map { _ in try store.create(root: Fixture.spec("a"), now: Fixture.created).session.id }
        let spellings = ids.map(\.rawValue).sorted()
        for cursor in ["0000000000000000000000", "-AAAAAAAAAAAAAAAAAAAAB", "MMMMMMMMMMMMMMMMMMMMMM", "zzzzzzzzzzzzzzzzzzzzzz", spellings[57]] {
            #expect(SessionID(rawValue: cursor) == nil || cursor == spellings[57])
            let page = store.sessions(after: cursor, limit: 1000).map(\.id.rawValue)
            #expect(page == spellings.filter { $0 > cursor }, "after \(cursor)")
        }
    }

    @Test("Real ids and tokens are random by default")
    func defaultMakers() throws {
        let store = InMemorySessionStore()
        let first = try store.create(root: Fixture.spec("a"), now: Fixture.created)
        let second = try store.create(root: Fixture.spec("a"), now: Fixture.created)
        #expect(first.session.id != second.session.id && first.token != second.token)
        #expect(first.session.tokenDigest.matches(first.token.rawValue))
        #expect(!first.session.tokenDigest.matches(second.token.rawValue))
    }
}

/// Lets a watcher reach its own `Watch`, which exists only after `watch` returns.
final class WatchHolder: Sendable {
    private let watch = Mutex<Watch?>(nil)

    func set(_ watch: Watch?) { self.watch.withLock { $0 = watch } }

    /// Lets go of the watch too: its callback holds this holder, so keeping it would be a cycle.
    func cancel() {
        watch.withLock { watch in
            defer { watch = nil }
            return watch
        }?.cancel()
    }
}
