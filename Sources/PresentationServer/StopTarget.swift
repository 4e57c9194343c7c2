import Dispatch
import Presentation
import PresentationAPI
import MicroHTTP
import SessionStorage
import Synchronization

/// What a stop signal stops, and whether one came: signals are taken (`StopSignals`) before the
/// server they stop exists, so a signal that comes first waits here for `arm`.
/// The first stop signal starts the stop, the next ones hurry it.
final class StopTarget: Sendable {
    struct Parts: Sendable {
        let api: PresentationAPI
        let server: HTTPServer
        let sweep: RepeatingWork
        let store: InMemorySessionStore
        let journal: SQLiteJournal?
    }

    private struct State {
        var parts: Parts?
        /// The first stop signal taken before `arm`.
        var early: Int32?
        var begun = false
    }

    private let state = Mutex(State())
    /// The stop runs here, not on the thread that takes signals, which stays free for a second
    /// stop signal: an operator who will not wait out the grace period (Ctrl-C twice, a second
    /// `docker stop`) ends it at once. Nobody took it while the first stop held that thread.
    private let stopQueue = DispatchQueue(label: "stop")

    /// Start-up is done: a signal kept meanwhile starts the stop now.
    func arm(_ parts: Parts) {
        let early = state.withLock { state -> Int32? in
            state.parts = parts
            return state.early
        }
        if let early { signalled(early) }
    }

    /// A stop signal: starts the stop, or hurries one begun; kept until `arm` when start-up runs.
    func signalled(_ number: Int32) {
        let (parts, first) = state.withLock { state -> (Parts?, Bool) in
            guard let parts = state.parts else {
                if state.early == nil { state.early = number }
                return (nil, false)
            }
            defer { state.begun = true }
            return (parts, !state.begun)
        }
        guard let parts else { return }
        guard first else {
            // Requests in flight are closed unanswered; the journal still finishes every write
            // it was handed, so nothing answered 2xx is lost.
            Log.warning("stopping_now", [("signal", .int(Int(number)))])
            parts.server.endGracePeriod()
            return
        }
        Log.info("stopping", [("signal", .int(Int(number)))])
        stopQueue.async { @Sendable in
            stopAndExit(parts.api, parts.server, parts.sweep, parts.store, parts.journal)
        }
    }
}
