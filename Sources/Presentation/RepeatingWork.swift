import Dispatch

/// Work run every `interval` seconds on a queue of its own until cancelled: the expiry sweep,
/// the renewals of short-lived followed sessions.
///
/// libdispatch's sources may be cancelled from any thread, but Dispatch does not mark them
/// `Sendable`: the timer is held here, where nothing but `cancel` reaches it.
public final class RepeatingWork: Sendable {
    nonisolated(unsafe) private let timer: any DispatchSourceTimer
    private let queue: DispatchQueue

    public init(label: String, every interval: Double, _ work: @escaping @Sendable () -> Void) {
        queue = DispatchQueue(label: label)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler(handler: work)
        timer.resume()
    }

    /// No run starts after this, and one under way has finished when it returns. A source's
    /// `cancel` only stops the next runs, so the stop would otherwise write the leases and close
    /// the journal beside a sweep removing sessions and writing leases of its own.
    public func cancel() {
        timer.cancel()
        queue.sync {}
    }

    /// No run starts after this, but one under way may still be running when it returns: for a
    /// caller that may hold a lock the work takes.
    public func cancelWithoutWaiting() {
        timer.cancel()
    }
}
