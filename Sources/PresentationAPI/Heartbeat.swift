import Dispatch
import MicroHTTP
import Synchronization

/// Sends a comment down every open event stream at a fixed interval.
///
/// A suspended connection is never written to while idle, so without this a client that
/// vanished would hold its connection forever; the write that fails frees it.
final class Heartbeat: Sendable {
    private let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])
    private let interval: Double

    init(interval: Double) {
        self.interval = interval
        scheduleBeat()
    }

    /// One timer at a time, rescheduled after each beat; it lapses once the API is gone.
    private func scheduleBeat() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            beat()
            scheduleBeat()
        }
    }

    var count: Int { streams.withLock { $0.count } }

    func add(_ stream: HTTPStream) {
        streams.withLock { $0[ObjectIdentifier(stream)] = stream }
    }

    func remove(_ stream: HTTPStream) {
        _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Ends every stream (the server is stopping).
    func finishAll() {
        for stream in streams.withLock({ Array($0.values) }) { stream.finish() }
    }

    private func beat() {
        for stream in streams.withLock({ Array($0.values) }) { stream.send(EventStreamFrame.keepAlive) }
    }
}
