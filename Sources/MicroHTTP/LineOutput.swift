import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines for a file descriptor, gathered and written in batches: an access log's stdout.
///
/// A write(2) a line is what a log costs most. Into a pipe, as a container runtime reads a
/// server's stdout, it added 4.5-8.6 µs of CPU to a push/pop of 15.5, most of it the kernel's
/// (docs/performance.md, item 92). Here lines wait in one buffer and go out together: when
/// `capacity` bytes wait, or `delay` after the first of them, whichever comes first. A busy
/// server fills the buffer long before the delay; a quiet one writes a few times a second.
/// Nothing waits and nothing runs while no line does.
///
/// Lines keep their order: they are added and written under one lock, and a line someone is
/// waiting for (a start, a stop, an error) goes out at once with those before it (`writeNow`).
/// What a crash loses is the lines of the last `delay` at most; a clean stop loses none,
/// if it ends with `writeNow` or `flush`. A failed write drops its lines: the log never
/// stops the server.
public final class LineOutput: Sendable {
    private struct Waiting {
        var bytes: [UInt8] = []
        /// How long a line may wait; nil: none waits, each is written when added.
        var delay: Duration?
        /// Whether a flush is due on the timer already.
        var flushScheduled = false
    }

    private let descriptor: Int32
    private let capacity: Int
    private let waiting: Mutex<Waiting>
    private let timer = DispatchQueue(label: "line-output-flush")

    /// `delay` nil writes each line as it comes, as a log without a buffer does.
    public init(descriptor: Int32, delay: Duration? = nil, capacity: Int = 64 << 10) {
        precondition(capacity > 0, "a buffer of no bytes")
        self.descriptor = descriptor
        self.capacity = capacity
        var waiting = Waiting(delay: delay)
        waiting.bytes.reserveCapacity(capacity)
        self.waiting = Mutex(waiting)
    }

    /// From now on, lines wait up to `delay` (nil: none waits); those waiting go out first.
    public func setDelay(_ delay: Duration?) {
        waiting.withLock { waiting in
            writeOut(&waiting)
            waiting.delay = delay
        }
    }

    /// Adds a whole line, newline included; it goes out with the batch it joins.
    public func write(_ line: UnsafeBufferPointer<UInt8>) {
        waiting.withLock { waiting in
            guard let delay = waiting.delay else { return writeAll(line) }
            if waiting.bytes.count + line.count > capacity { writeOut(&waiting) }
            if line.count > capacity { return writeAll(line) }
            waiting.bytes.append(contentsOf: line)
            if !waiting.flushScheduled {
                waiting.flushScheduled = true
                timer.asyncAfter(deadline: .now() + .nanoseconds(Int(delay / .nanoseconds(1)))) { [self] in flush() }
            }
        }
    }

    /// Writes the waiting lines, then `line`, at once.
    public func writeNow(_ line: UnsafeBufferPointer<UInt8>) {
        waiting.withLock { waiting in
            writeOut(&waiting)
            writeAll(line)
        }
    }

    /// Writes the lines waiting, if any.
    public func flush() {
        waiting.withLock { waiting in
            writeOut(&waiting)
            waiting.flushScheduled = false
        }
    }

    private func writeOut(_ waiting: inout Waiting) {
        guard !waiting.bytes.isEmpty else { return }
        waiting.bytes.withUnsafeBufferPointer { writeAll($0) }
        waiting.bytes.removeAll(keepingCapacity: true)
    }

    /// Every byte, through partial writes and interruptions, and on a non-blocking descriptor
    /// (a runtime may hand one over as stdout) through a full pipe, waiting up to a second
    /// each time for its reader: a batch written in part would end the log mid-line. Gives up
    /// on any other error, or on a reader that stopped reading.
    private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK, writable(within: Self.patienceMilliseconds) { continue }
                return
            }
            next += written
            left -= written
        }
    }

    /// How long a write waits for a full pipe's reader, each time it is full.
    private static let patienceMilliseconds: Int32 = 1000

    private func writable(within milliseconds: Int32) -> Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&waiting, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready > 0 && waiting.revents & Int16(POLLOUT) != 0
        }
    }
}
