import Dispatch
import Presentation
import Synchronization
import Testing

/// The stop cancels the expiry sweep, then writes the leases and closes the journal alone: a
/// cancel must wait for a run already under way, not only stop the next ones.
@Suite struct RepeatingWorkTests {
    @Test func cancelWaitsForTheRunUnderWay() {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let runs = Count()
        let work = RepeatingWork(label: "test-work", every: 0.01) {
            if runs.next() == 1 {
                started.signal()
                release.wait()
            }
        }
        started.wait()
        let cancelled = Count()
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            work.cancel()
            _ = cancelled.next()
            returned.signal()
        }
        // The run is held: however long the wait, a cancel that waits for it cannot return.
        let returnedEarly = returned.wait(timeout: .now() + .milliseconds(200)) == .success
        #expect(!returnedEarly, "cancel returned while the run was still under way")
        release.signal()
        if !returnedEarly { returned.wait() }
        #expect(cancelled.value == 1)
    }

    @Test func noRunStartsAfterCancel() {
        let runs = Count()
        let ran = DispatchSemaphore(value: 0)
        let work = RepeatingWork(label: "test-work", every: 0.01) {
            _ = runs.next()
            ran.signal()
        }
        ran.wait()
        work.cancel()
        let after = runs.value
        // Ten intervals: an uncancelled timer would run again in them.
        #expect(ran.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        #expect(runs.value == after)
    }

    @Test func runsAgainEveryInterval() {
        let ran = DispatchSemaphore(value: 0)
        let work = RepeatingWork(label: "test-work", every: 0.01) { ran.signal() }
        for _ in 0..<3 { ran.wait() }
        work.cancel()
    }
}

/// A count the work's queue and the test share.
private final class Count: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func next() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }
}
