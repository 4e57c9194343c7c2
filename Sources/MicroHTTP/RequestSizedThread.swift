#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` on a new detached thread with the request threads' stack
/// (`HTTPServer.requestThreadStackBytes`), for an answer written away from a request thread:
/// a libdispatch thread's stack is `ulimit -s` (glibc's default for a thread started without
/// a size), and writing a session's JSON recurses once per level of its tree, which at
/// `--max-presentation-depth 1000` overflowed a 256 KiB one. A thread per call: for what
/// happens at most once a request (a long poll running out), not on every request.
public func onRequestSizedThread(_ body: @escaping @Sendable () -> Void) {
    final class Start: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, HTTPServer.requestThreadStackBytes)
    // Retained for the thread, which takes it back before running it.
    let context = Unmanaged.passRetained(Start(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, &attributes, { context in
        Unmanaged<Start>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    // A process that cannot start a thread has no memory or thread quota left: nothing to recover.
    precondition(started == 0, "cannot start a thread: \(String(cString: strerror(started)))")
    pthread_detach(thread)
}
