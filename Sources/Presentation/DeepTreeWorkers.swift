import Dispatch
import Synchronization

/// A fixed set of threads with `DeepTreeThread`'s stack, taking jobs in the order they come.
///
/// For work that comes in bursts from clients and walks a session's tree (a long poll's answer
/// when its time runs out): a thread of its own for each job made the server's threads as many as
/// the clients whose time ran out together (1,000 long polls timing out at once: hundreds of threads),
/// and a process that cannot start one (a container's `pids.max`) stops on `DeepTreeThread`'s
/// precondition. Here the threads are `count`, started with the first job and kept: as many
/// as can run at once anyway, and a burst waits for them in the queue, which holds closures only.
public final class DeepTreeWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        /// The first job not yet taken; those before it are taken and dropped in batches, so that
        /// draining a burst of thousands does not move the rest on every one.
        var head = 0
    }

    private let name: String
    private let count: Int
    private let state = Mutex(State())
    /// One signal a job queued: a thread waits on it, then takes one.
    private let queued = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// `name` is each thread's for the kernel (`top -H`, `ps -L`).
    public init(named name: String, count: Int) {
        precondition(count >= 1, "no threads to run jobs on")
        self.name = name
        self.count = count
    }

    /// Runs `job` on one of the threads, after the jobs queued before it have been taken.
    public func run(_ job: @escaping @Sendable () -> Void) {
        if !started.exchange(true, ordering: .relaxed) {
            for _ in 0..<count {
                DeepTreeThread.detach(named: name) { [self] in work() }
            }
        }
        state.withLock { $0.jobs.append(job) }
        queued.signal()
    }

    private func work() {
        while true {
            queued.wait()
            let job = state.withLock { state -> @Sendable () -> Void in
                let job = state.jobs[state.head]
                state.head += 1
                if state.head == state.jobs.count {
                    state.jobs.removeAll(keepingCapacity: state.jobs.capacity <= 64)
                    state.head = 0
                } else if state.head >= 64, state.head * 2 >= state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            job()
        }
    }
}
