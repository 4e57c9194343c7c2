import Dispatch
import MicroHTTP
import Synchronization

/// Sends a comment down every open event stream at a fixed interval.
///
/// A suspended connection is never written to while idle, so without this a client that
/// vanished would hold its connection forever; the write that fails frees it.
///
/// Each beat also runs the stream's `beat` closure first: an event stream's keeps its session
/// alive, since a client following it is using it though it sends nothing (an app on screen
/// while the person reads), as a long poll's answers do. Once every `interval` a stream, not
/// on any request's path.
final class Heartbeat: Sendable {
    private struct Beating {
        let stream: HTTPStream
        let beat: (@Sendable () -> Void)?
    }

    private let streams = Mutex<[ObjectIdentifier: Beating]>([:])
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

    /// `beat`: what to do at each beat before the comment goes out, nil for nothing.
    func add(_ stream: HTTPStream, beat: (@Sendable () -> Void)? = nil) {
        streams.withLock { $0[ObjectIdentifier(stream)] = Beating(stream: stream, beat: beat) }
    }

    func remove(_ stream: HTTPStream) {
        _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Ends every stream (the server is stopping).
    func finishAll() {
        for beating in streams.withLock({ Array($0.values) }) { beating.stream.finish() }
    }

    func beat() {
        for beating in streams.withLock({ Array($0.values) }) {
            beating.beat?()
            beating.stream.send(EventStreamFrame.keepAlive)
        }
    }
}
