import Foundation
import Synchronization
import Testing

@testable import Presentation

/// The bound on the process's memory past which new sessions are refused: when it measures,
/// when it reclaims, and what the store does with it.
@Suite("Memory budget")
struct MemoryBudgetTests {
    /// A process's memory as the test sets it, counting how often it is read and reclaimed.
    final class FakeMemory: Sendable {
        private let state = Mutex((bytes: 0 as Int?, reads: 0, reclaims: 0, freedByReclaim: 0))
        func set(_ bytes: Int?, freedByReclaim: Int = 0) {
            state.withLock { $0.bytes = bytes; $0.freedByReclaim = freedByReclaim }
        }
        var reads: Int { state.withLock { $0.reads } }
        var reclaims: Int { state.withLock { $0.reclaims } }
        func read() -> Int? {
            state.withLock {
                $0.reads += 1
                return $0.bytes
            }
        }
        func reclaim() {
            state.withLock { memory in
                memory.reclaims += 1
                memory.bytes = memory.bytes.map { [freed = memory.freedByReclaim] in $0 - freed }
                memory.freedByReclaim = 0
            }
        }
        func budget(limit: Int) -> MemoryBudget {
            MemoryBudget(limit: limit, interval: 1, measure: { self.read() }, reclaim: { self.reclaim() })
        }
    }

    @Test("Memory is measured at most once an interval; the limit itself is past it")
    func measuresEachInterval() {
        let memory = FakeMemory()
        memory.set(999)
        let budget = memory.budget(limit: 1_000)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(!budget.isExceeded(now: start))
        memory.set(1_000)
        // Within the interval the last reading stands.
        #expect(!budget.isExceeded(now: start.addingTimeInterval(0.5)))
        #expect(memory.reads == 1)
        #expect(budget.isExceeded(now: start.addingTimeInterval(1)))
        #expect(memory.reads == 3, "measured, reclaimed, measured again")
        #expect(memory.reclaims == 1)
        #expect(budget.lastReading == 1_000)
        // A clock set back measures again rather than trusting a reading from the future.
        memory.set(10)
        #expect(!budget.isExceeded(now: start))
    }

    /// Each creation reads the time before it reaches the budget, so on several threads the
    /// budget sees times a little out of order: one read just before the last reading was
    /// taken is no clock set back, and must not measure (and, at the limit, hand heap back,
    /// which stops every thread's allocations while it walks them) once more.
    @Test("A time a little before the last reading, from a creation that read it earlier, uses that reading")
    func creationsOutOfOrder() {
        let memory = FakeMemory()
        memory.set(1_500)
        let budget = memory.budget(limit: 1_000)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(budget.isExceeded(now: start))
        #expect(memory.reads == 2 && memory.reclaims == 1)
        #expect(budget.isExceeded(now: start.addingTimeInterval(-0.001)))
        #expect(budget.isExceeded(now: start.addingTimeInterval(0.5)))
        #expect(budget.isExceeded(now: start.addingTimeInterval(-0.5)))
        #expect(memory.reads == 2, "measured again within the interval")
        #expect(memory.reclaims == 1)
        // An interval or more either way measures again.
        memory.set(10)
        #expect(!budget.isExceeded(now: start.addingTimeInterval(-1)))
        #expect(memory.reads == 3)
    }

    @Test("At the limit, freed heap is reclaimed and measured again before refusing")
    func reclaimsBeforeRefusing() {
        let memory = FakeMemory()
        memory.set(1_500, freedByReclaim: 600)
        let budget = memory.budget(limit: 1_000)
        #expect(!budget.isExceeded(now: Date(timeIntervalSince1970: 0)))
        #expect(memory.reclaims == 1)
        #expect(budget.lastReading == 900)
        // Below the limit nothing is reclaimed.
        #expect(!budget.isExceeded(now: Date(timeIntervalSince1970: 5)))
        #expect(memory.reclaims == 1)
    }

    /// One creation measures at a time. One that comes meanwhile may use the last reading when
    /// that lets it in, but not when it refuses it: the measure under way hands freed heap back
    /// first, and may find room, as a quiet server's next creation would. Refused on the stale
    /// reading, creations arriving together at a budget freed by deleted sessions got 503 while
    /// the one measuring found the process under it.
    @Test("A creation that comes while another measures past the limit waits for that measure")
    func waitsForMeasureUnderWay() {
        let memory = FakeMemory()
        memory.set(1_500)
        let reclaiming = DispatchSemaphore(value: 0)
        let letReclaimGo = DispatchSemaphore(value: 0)
        let gated = Atomic<Bool>(false)
        let budget = MemoryBudget(
            limit: 1_000, interval: 1, measure: { memory.read() },
            reclaim: {
                memory.reclaim()
                guard gated.load(ordering: .relaxed) else { return }
                reclaiming.signal()
                // Bounded, so that a regression fails rather than hangs.
                _ = letReclaimGo.wait(timeout: .now() + 5)
            })
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(budget.isExceeded(now: start))
        // Sessions deleted since: their heap goes back to the system at the next reclaim.
        memory.set(1_500, freedByReclaim: 600)
        gated.store(true, ordering: .relaxed)
        let later = start.addingTimeInterval(1)
        // Threads of their own: the global queue's pool may not start another while one waits.
        let measured = DispatchSemaphore(value: 0)
        let first = Atomic<Int>(-1)
        Thread {
            first.store(budget.isExceeded(now: later) ? 1 : 0, ordering: .relaxed)
            measured.signal()
        }.start()
        #expect(reclaiming.wait(timeout: .now() + 5) == .success, "the first creation measures and reclaims")
        let arrived = DispatchSemaphore(value: 0)
        let second = Atomic<Int>(-1)
        Thread {
            arrived.signal()
            second.store(budget.isExceeded(now: later) ? 1 : 0, ordering: .relaxed)
            measured.signal()
        }.start()
        // The second creation comes while the first is still reclaiming.
        #expect(arrived.wait(timeout: .now() + 5) == .success)
        Thread.sleep(forTimeInterval: 0.2)
        letReclaimGo.signal()
        #expect(measured.wait(timeout: .now() + 10) == .success)
        #expect(measured.wait(timeout: .now() + 10) == .success)
        #expect(first.load(ordering: .relaxed) == 0)
        #expect(second.load(ordering: .relaxed) == 0, "refused on the reading the measure under way was replacing")
        #expect(memory.reclaims == 2)
    }

    @Test("Memory that cannot be measured never refuses")
    func unmeasurable() {
        let memory = FakeMemory()
        memory.set(nil)
        let budget = memory.budget(limit: 1)
        #expect(!budget.isExceeded(now: Date(timeIntervalSince1970: 0)))
        #expect(budget.lastReading == nil)
    }

    @Test("Past the budget the store refuses creations and imports, and existing sessions go on")
    func storeRefusesNewSessions() throws {
        let memory = FakeMemory()
        memory.set(100)
        let store = InMemorySessionStore(memoryBudget: memory.budget(limit: 1_000))
        let now = Fixture.created
        let made = try store.create(root: Fixture.spec("home"), now: now).session
        memory.set(1_000)
        let later = now.addingTimeInterval(2)
        #expect(throws: PresentationError.memoryLimitReached(limit: 1_000)) {
            try store.create(root: Fixture.spec("home"), now: later)
        }
        let imported = try ImportedSession(checking: made.snapshot, limits: store.limits)
        #expect(throws: PresentationError.memoryLimitReached(limit: 1_000)) {
            try store.importSession(imported, timeToLive: nil, now: later)
        }
        #expect(store.count == 1)
        _ = try store.update(made.id) { session in try session.run(.push(Fixture.spec("a"))) }
        #expect(store.session(made.id)?.revision == 2)
        memory.set(999)
        _ = try store.create(root: Fixture.spec("home"), now: later.addingTimeInterval(2))
        #expect(store.count == 2)
    }
}
