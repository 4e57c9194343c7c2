#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Presentation

/// Takes the stop signals on a thread of its own, in `sigwait`, and hands each to `handle`.
///
/// The signals must be blocked in every thread first (main.swift blocks them before any
/// other thread exists, and threads inherit the mask), so that this thread's `sigwait` is
/// their only taker. It needs no descriptor: libdispatch's signal sources, used before, each
/// took a signalfd that their manager thread opened some time after `resume()`, and said
/// nothing when it could not have one. Short of descriptors (`ulimit -n`, or clients taking
/// them all as a restarted server began to accept), SIGTERM's source got none, and SIGTERM,
/// blocked for it, stayed pending for ever: the server logged `listening` and ignored every
/// SIGTERM until SIGKILL. Made first, the sources still lost that race now and then, since the
/// descriptor came later than the call. `handle` runs on this thread, one signal at a time;
/// it must return soon (a second signal hurries a stop under way).
enum StopSignals {
    static func take(_ signals: [Int32], _ handle: @escaping @Sendable (Int32) -> Void) {
        // The thread's stack size does not matter here; DeepTreeThread is how the server starts one.
        // Named, for whoever reads /proc: while it waits, the kernel shows the signals it
        // waits for as unblocked on this thread alone (SignalMaskTests).
        DeepTreeThread.detach(named: "stop-signals") {
            var set = sigset_t()
            sigemptyset(&set)
            for number in signals { sigaddset(&set, number) }
            while true {
                var number: Int32 = 0
                // Fails only for a set holding no signal it may wait for: never these.
                guard sigwait(&set, &number) == 0 else { continue }
                handle(number)
            }
        }
    }
}
