#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections the process's descriptor limit (`ulimit -n`, RLIMIT_NOFILE) leaves
/// room for once the server's own descriptors are counted out.
///
/// Each connection holds one descriptor. Past the limit, libmicrohttpd's accept fails with
/// EMFILE, and a worker that holds no connection of its own then busy-waits on the listening
/// socket, logging two lines each turn (184,000 lines in 4 s at `--nofile=64`), while what the
/// server opens as it serves (a static file, /proc for its metrics, SQLite's temporary files)
/// fails. Kept under it, the connection limit is reached first: new clients wait in the
/// backlog, and nothing else goes short.
public enum DescriptorRoom {
    /// Descriptors kept for the server itself: standard streams, libdispatch's and the signal
    /// sources', the listening socket, the database, its log and index, the journal's own
    /// descriptor of the log, the data directory's lock, and what a request opens for a moment
    /// (a static file, a /proc file), with room to spare; and an epoll and a wake-up channel a
    /// worker thread.
    public static func reserved(threads: Int) -> Int {
        32 + 2 * threads
    }

    /// Raises the soft descriptor limit to the hard one, as Go's runtime does at start. The
    /// soft limit is 1,024 under systemd and many shells whatever the hard one allows (systemd
    /// asks programs that need more to raise it themselves, and to poll rather than select:
    /// libmicrohttpd here uses epoll), so the default connection limit was cut to about 990
    /// when the process could have had thousands for the asking. Nothing is spent until
    /// descriptors are opened. Best effort: a limit that cannot be raised stays.
    public static func raiseSoftLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The connections the descriptor limit leaves room for with `threads` workers, at least
    /// one; nil when there is no limit.
    public static func connections(threads: Int) -> Int? {
        var limit = rlimit()
        // RLIM_INFINITY is all ones.
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return max(1, Int(clamping: limit.rlim_cur) - reserved(threads: threads))
    }
}
