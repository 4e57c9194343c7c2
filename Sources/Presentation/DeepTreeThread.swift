#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Threads that may walk a session's tree: their stack, and how they start.
///
/// Decoding a session and writing its JSON recurse once per level of its tree, some 2,000
/// levels at `--max-presentation-depth 1000`. A thread started without a size gets
/// `ulimit -s` (glibc takes its default from that limit, libdispatch's workers included), and
/// 256 KiB overflowed on such a tree. So every thread the server starts itself to handle a
/// session (the journal's writer and sync threads, start-up's restore, the workers that answer
/// long polls whose time ran out) asks for 8 MiB, glibc's usual default, as libmicrohttpd's request threads do
/// (`HTTPServer.requestThreadStackBytes`). Only the pages a thread touches are resident.
public enum DeepTreeThread {
    /// 8 MiB.
    public static let stackBytes = 8 << 20

    /// Runs `body` on a new thread of its own, detached: it ends when `body` returns. `name`
    /// is the thread's for the kernel, the one `top -H`, `ps -L` and `perf` show.
    public static func detach(named name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        pthread_detach(start {
            if let name { nameKernelThread(name) }
            body()
        })
    }

    /// Runs `body(0)` to `body(count - 1)`, each on a thread of its own, and returns once every
    /// one has: `body` does not outlive this call.
    public static func joined(_ count: Int, _ body: @Sendable (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            let threads = (0..<count).map { index in start { body(index) } }
            for thread in threads { pthread_join(thread, nil) }
        }
    }

    /// Starts `body` on a new joinable thread of `stackBytes`.
    ///
    /// The closure crosses into the thread as a retained context pointer; the thread takes it
    /// back (balancing the retain) before it runs it, so nothing outlives the thread.
    private static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        final class Start: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackBytes)
        let context = Unmanaged.passRetained(Start(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            Unmanaged<Start>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        // A process that cannot start a thread has no memory or thread quota left: nothing to recover.
        precondition(started == 0, "cannot start a thread: \(String(cString: strerror(started)))")
        return thread
    }
}

/// Names the calling thread for the kernel. `pthread_setname_np` is not in Swift's Glibc
/// module, so the name (15 bytes at most) is written where it lives. Best effort: a thread
/// without its name works the same.
private func nameKernelThread(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard file >= 0 else { return }
    defer { close(file) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
}
