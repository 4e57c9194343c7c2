#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body(0)` to `body(count - 1)`, each on a thread of its own with a stack of
/// `stackBytes`, and returns once every one has. Not the calling thread, nor libdispatch's:
/// the main thread's stack is `ulimit -s`, and so is the default of every thread started
/// without a size (glibc takes it from the same limit), libdispatch's workers included.
func onJoinedThreads(_ count: Int, stackBytes: Int = journalThreadStackBytes, _ body: @Sendable (Int) -> Void) {
    final class Start: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    withoutActuallyEscaping(body) { body in
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackBytes)
        var threads: [pthread_t] = []
        for index in 0..<count {
            // Retained for the thread, which takes it back before running it; joined below, so
            // `body` does not outlive this call.
            let context = Unmanaged.passRetained(Start { body(index) }).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(&thread, &attributes, { context in
                Unmanaged<Start>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
            // A process that cannot start a thread has no memory or thread quota left: nothing to recover.
            precondition(started == 0, "cannot start a thread: \(String(cString: strerror(started)))")
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
