import Dispatch
import Synchronization

@testable import SessionStorage

/// A disk whose next fsync, once `hold()` is called, waits until released; the others go
/// through at once. So a test can look at the server while a write is committed but not yet
/// durable, and so not yet answered.
final class HeldDisk: Sendable {
    private let held: Atomic<Bool>
    private let started = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)

    /// `holdingFirst`: the first fsync of all is held, as if `hold()` came before it.
    init(holdingFirst: Bool = false) {
        held = Atomic(holdingFirst)
    }

    func hold() { held.store(true, ordering: .sequentiallyConsistent) }

    func sync(_ wal: WALFile) -> Int32 {
        if held.exchange(false, ordering: .sequentiallyConsistent) {
            started.signal()
            gate.wait()
        }
        return wal.sync()
    }

    /// True once the held fsync has begun (within five seconds).
    func waitUntilSyncing() -> Bool { started.wait(timeout: .now() + 5) == .success }

    func release() { gate.signal() }
}
