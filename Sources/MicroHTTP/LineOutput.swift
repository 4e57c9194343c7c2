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
/// if it ends with `writeNow` or `flush`. A failed write drops its lines, and on a
/// non-blocking descriptor a reader stalled for a second is given up on. A blocking one (a
/// terminal, most pipes) is written as the system writes it: a reader that stops reading
/// altogether stops the requests that log behind it, as it would any process's output.
public final class LineOutput: Sendable {
    private struct Waiting {
        var bytes: [UInt8] = []
        /// How long a line may wait; nil: none waits, each is written when added.
        var delay: Duration?
        /// Whether a flush is due on the timer already.
        var flushScheduled = false
        /// The rest of a line whose write was given up midway (its reader gone): it goes out
        /// before anything else, so that no line is cut short or runs into the next.
        var unfinished: [UInt8] = []
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
            guard let delay = waiting.delay else { return writeAll(line, &waiting.unfinished) }
            if waiting.bytes.count + line.count > capacity { writeOut(&waiting) }
            if line.count > capacity { return writeAll(line, &waiting.unfinished) }
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
            writeAll(line, &waiting.unfinished)
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
        waiting.bytes.withUnsafeBufferPointer { writeAll($0, &waiting.unfinished) }
        waiting.bytes.removeAll(keepingCapacity: true)
    }

    /// Writes whole lines, after the rest of a line given up on if there is one. A write
    /// given up midway keeps the rest of the line it cut, for next time, and drops the lines
    /// after it: a reader back from a stall reads whole lines only, one JSON object each.
    private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, _ unfinished: inout [UInt8]) {
        if !unfinished.isEmpty {
            let rest = unfinished
            unfinished = []
            rest.withUnsafeBufferPointer { writeLines($0, startingMidLine: true, &unfinished) }
            // Still not taken: these lines are dropped, as those of any failed write are.
            guard unfinished.isEmpty else { return }
        }
        writeLines(bytes, startingMidLine: false, &unfinished)
    }

    private func writeLines(_ bytes: UnsafeBufferPointer<UInt8>, startingMidLine: Bool, _ unfinished: inout [UInt8]) {
        let written = writeBytes(bytes)
        guard written < bytes.count else { return }
        let cut = written == 0 ? startingMidLine : bytes[written - 1] != Self.newline
        guard cut else { return }
        let end = bytes[written...].firstIndex(of: Self.newline).map { $0 + 1 } ?? bytes.count
        unfinished = Array(bytes[written..<end])
    }

    private static let newline = UInt8(ascii: "\n")

    /// Every byte, through partial writes and interruptions, and on a non-blocking descriptor
    /// (a runtime may hand one over as stdout) through a full pipe, waiting up to a second
    /// each time for its reader: a batch written in part would end the log mid-line. Gives up
    /// on any other error, or on a reader that stopped reading. Returns how many it wrote.
    private func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard var next = bytes.baseAddress else { return 0 }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK, writable(within: Self.patienceMilliseconds) { continue }
                break
            }
            next += written
            left -= written
        }
        return bytes.count - left
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
