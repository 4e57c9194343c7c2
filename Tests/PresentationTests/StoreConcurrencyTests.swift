import Foundation
import Presentation
import Synchronization
import SessionChecks
import Testing

@Suite("Store under concurrency")
struct StoreConcurrencyTests {
    @Test("Many threads pushing and popping one session: one revision per successful update, and a valid tree")
    func oneSession() throws {
        let store = IDSequence.store(limits: Limits(maxStackLength: 10))
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        let successes = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            var random = SplitMix64(state: UInt64(thread))
            for _ in 0..<300 {
                let operation: Step =
                    Bool.random(using: &random)
                    ? Step(operation: .push(Fixture.spec("detail")))
                    : Step(operation: .pop(result: .bool(true)))
                do {
                    _ = try store.update(id) { session in
                        try session.apply([operation], at: Fixture.created, limits: store.limits)
                    }
                    successes.add(1, ordering: .relaxed)
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        let succeeded = successes.load(ordering: .relaxed)
        let session = try #require(store.session(id))
        #expect(succeeded + failures.load(ordering: .relaxed) == 16 * 300)
        #expect(succeeded > 0)
        #expect(session.revision == 1 + succeeded)
        #expect(session.root.path.count <= 10)
        expectValidTree(session)
        let revisions = log.all.compactMap { change -> Int? in
            if case .revised(let revision, _) = change { return revision }
            return nil
        }
        #expect(Set(revisions) == Set(2...session.revision))
        #expect(revisions.count == succeeded)
    }

    @Test("Concurrent creations never exceed the session limit")
    func createRace() {
        let store = InMemorySessionStore(limits: Limits(maxSessions: 50))
        let created = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            do {
                _ = try store.create(root: Fixture.spec("home"), now: Fixture.created)
                created.add(1, ordering: .relaxed)
            } catch {
                #expect(error as? PresentationError == .tooManySessions(limit: 50))
                refused.add(1, ordering: .relaxed)
            }
        }
        #expect(created.load(ordering: .relaxed) == 50)
        #expect(refused.load(ordering: .relaxed) == 150)
        #expect(store.count == 50)
    }

    @Test("Different sessions are updated in parallel without mixing their changes")
    func manySessions() throws {
        let store = IDSequence.store()
        let ids = try (0..<32).map { _ in try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id }
        DispatchQueue.concurrentPerform(iterations: ids.count * 4) { index in
            let id = ids[index % ids.count]
            for _ in 0..<25 {
                _ = try? store.update(id) { session in
                    try session.apply(
                        [Step(operation: .replace(Fixture.spec("next")))], at: Fixture.created, limits: store.limits)
                }
            }
        }
        for id in ids {
            let session = try #require(store.session(id))
            #expect(session.revision == 1 + 4 * 25)
            #expect(session.root.path.count == 1)
        }
    }

    @Test("Deleting while others update ends every update cleanly")
    func deleteDuringUpdates() throws {
        let store = IDSequence.store()
        let id = try store.create(root: Fixture.spec("home"), now: Fixture.created).session.id
        let log = ChangeLog()
        _ = store.watch(id, log.append)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            if thread == 0 {
                #expect((try? store.delete(id)) == true)
                return
            }
            for _ in 0..<100 {
                do {
                    _ = try store.update(id) { session in
                        try session.apply(
                            [Step(operation: .replace(Fixture.spec("x")))], at: Fixture.created, limits: store.limits)
                    }
                } catch {
                    #expect(error as? PresentationError == .sessionNotFound)
                }
            }
        }
        #expect(store.session(id) == nil && store.count == 0)
        #expect(log.all.filter { $0 == .deleted }.count == 1)
    }
}
