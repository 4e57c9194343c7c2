/// How much of a body announced past `maxBodyBytes` is read and thrown away before its 413.
///
/// Answered as soon as its headers arrive, such a request left its body unread in the socket
/// when libmicrohttpd closed the connection after the answer, and the kernel then reset the
/// connection: a client still sending (every browser sends the whole body without waiting for
/// `100 Continue`) had its next write fail, and curl reported no answer at all (1 request in
/// 30 sending 8 MB; RefusedBodyTests). Read to its end first, the body leaves nothing in the
/// socket, and the 413 reaches the client like any answer.
///
/// A refused body is never kept nor counted among `BufferedBodies`: it costs the bandwidth
/// of its bytes and the connection while they arrive, which `--connection-timeout` bounds
/// for a client that stops sending, as for any body. The bound stops a client that announces
/// gigabytes from having them all read: past it, the 413 is sent at once, as before, and
/// such a client may see the reset. Four largest bodies, and never less than 16 MiB, which
/// takes in the usual mistake (a photo or an export sent where the default 1 MiB is the limit).
struct RefusedBodyDrain: Sendable {
    /// Announced lengths up to this many bytes are read to their end before the 413.
    let limit: Int

    init(maxBodyBytes: Int) {
        limit = max(4 * maxBodyBytes, 16 << 20)
    }

    /// Whether a body announced at `length` (past `maxBodyBytes`) is read before it is refused.
    /// A client that asked for `100 Continue` waits for it before sending the body, so it gets
    /// its 413 at once, with nothing of the body sent to leave unread.
    func reads(announcedLength length: Int, expectsContinue: Bool) -> Bool {
        !expectsContinue && length <= limit
    }
}
