#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization
import Presentation

/// A thread that takes everything queued since its last turn as one batch, until stopped and
/// drained: what the journal's writer (batches of writes, one transaction each) and its sync
/// thread (batches of commits, one fsync each) both are.
final class BatchThread<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        /// The last batch's array, emptied with its room kept, for the next batch to fill.
        /// Filled from empty, a batch of 64 grew its array seven times, the large growths on
        /// the request thread through glibc's slow path (`malloc_consolidate`), and the array
        /// was then freed on this thread.
        var spare: [Item] = []
        var stopping = false
    }

    /// The room a spare array may keep: a burst's batch is not held on to.
    private static var spareCapacity: Int { 1024 }

    private let state = Mutex(State())
    /// The thread waits on this for work; `add` signals it.
    private let work = Condition()
    /// `stop()` waits on this for the thread to end.
    private let done = Condition()
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    init() {}

    /// Starts the thread, which calls `process` with each batch, in order. The closure is the
    /// thread's alone and released when it ends, so it may hold the batches' owner.
    func start(name: String, _ process: @escaping @Sendable ([Item]) -> Void) {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        DeepTreeThread.detach(named: name) { [self] in
            run(process)
        }
    }

    /// Queues `item` for the next batch; false, and nothing queued, once stopping.
    func add(_ item: Item) -> Bool {
        let added = state.withLock { state in
            guard !state.stopping else { return false }
            state.pending.append(item)
            return true
        }
        if added {
            work.lock()
            work.signal()
            work.unlock()
        }
        return added
    }

    /// Takes back the first queued item that `matches`, if the thread has not taken it yet.
    func withdraw(where matches: (Item) -> Bool) -> Bool {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: matches) else { return false }
            state.pending.remove(at: index)
            return true
        }
    }

    /// Items waiting for the next batch (not the one being processed).
    var queued: Int { state.withLock { $0.pending.count } }

    private func run(_ process: @Sendable ([Item]) -> Void) {
        while true {
            work.lock()
            var batch: [Item] = []
            var stopping = false
            while true {
                (batch, stopping) = state.withLock { state in
                    // Nothing queued: the array stays, with its room, for the items to come.
                    guard !state.pending.isEmpty else { return ([], state.stopping) }
                    let taken = state.pending
                    state.pending = state.spare
                    state.spare = []
                    return (taken, state.stopping)
                }
                if !batch.isEmpty || stopping { break }
                work.wait()
                // Woken by the first item, let the threads that add items run on before taking
                // the batch. On one core the scheduler ran a woken journal thread at once, so a
                // batch held the 5-7 writes queued by then and each cost a transaction or an
                // fsync; after a yield it holds those of a whole turn of the request thread.
                // Where the core has nothing else to run, the yield returns at once.
                work.unlock()
                sched_yield()
                work.lock()
            }
            work.unlock()
            if batch.isEmpty && stopping { break }
            process(batch)
            // `process` keeps no reference to the array, so this empties it in place.
            batch.removeAll(keepingCapacity: true)
            if batch.capacity <= Self.spareCapacity {
                state.withLock { $0.spare = batch }
            }
        }
        stopped.store(true, ordering: .releasing)
        done.lock()
        done.broadcast()
        done.unlock()
    }

    /// Refuses new items, lets the thread process what is queued, and waits for it to end.
    func stop() {
        state.withLock { $0.stopping = true }
        guard started.load(ordering: .relaxed) else { return }
        work.lock()
        work.signal()
        work.unlock()
        done.lock()
        while !stopped.load(ordering: .acquiring) {
            done.wait()
        }
        done.unlock()
    }
}
