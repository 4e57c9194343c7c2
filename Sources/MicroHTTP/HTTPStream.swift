import Synchronization

/// A response body written over time from any thread (Server-Sent Events).
///
/// The connection is suspended while there is nothing to send, so an idle subscriber
/// holds no thread and uses no CPU; `send` resumes it. A reader that falls too far
/// behind (more than `maxBufferedBytes` waiting when another message comes, as docs/api.md
/// says it) is cut off rather than buffered without bound: it reconnects and resumes.
public final class HTTPStream: Sendable {
    enum Read {
        case bytes(Int)
        case wait
        case end
    }

    private struct State {
        var buffer: [UInt8] = []
        /// How much of `buffer` has been handed to libmicrohttpd. Read from the front by
        /// moving this on, not by removing the bytes: libmicrohttpd takes a few KiB a call, and
        /// moving the rest of a large message (a backlog of every kept event) to the front on
        /// each call made reading it quadratic.
        var sent = 0
        /// What is queued and not yet sent.
        var waiting: Int { buffer.count - sent }
        var finished = false
        var closed = false
        var connection: ConnectionHandle?
        var suspended = false
        var onClose: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let maxBufferedBytes: Int

    /// The buffer's storage kept for the next message once everything is sent: what a few
    /// ordinary messages take, so that a stream does not allocate for each.
    private static let keptCapacity = 64 << 10

    public init(maxBufferedBytes: Int = 1 << 20) {
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// Queues bytes for the client. False once the stream is finished or the client is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.closed else { return false }
            // Behind is what is still waiting, before this message: a message larger than the
            // limit (a session's JSON may be) is taken while the reader keeps up, else it would
            // end every stream at once, and every reconnection too.
            if state.waiting > maxBufferedBytes {
                state.finished = true
            } else {
                // What was sent goes once it is as much as what waits: moving the rest to the
                // front then costs no more than what was sent, and never happens per read.
                if state.sent > 0, state.sent >= state.waiting {
                    state.buffer.removeFirst(state.sent)
                    state.sent = 0
                }
                state.buffer.append(contentsOf: bytes)
            }
            Self.wake(&state)
            return !state.finished
        }
    }

    /// Ends the body once what is queued has been sent.
    public func finish() {
        state.withLock { state in
            state.finished = true
            Self.wake(&state)
        }
    }

    /// Runs `action` once, when the connection is gone (or at once if it already is).
    public func onClose(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.closed { return true }
            state.onClose = action
            return false
        }
        if runNow { action() }
    }

    /// True once the client's connection has ended.
    public var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// The bytes of storage the stream holds for its queue, sent or not: what an idle
    /// subscriber keeps (tests check a large message's goes once it is sent).
    var bufferCapacity: Int {
        state.withLock { $0.buffer.capacity }
    }

    func attach(to connection: ConnectionHandle) {
        state.withLock { $0.connection = connection }
    }

    /// Called on the connection's thread by libmicrohttpd's content reader.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        state.withLock { state in
            if state.waiting > 0 {
                let count = min(buffer.count, state.waiting)
                let start = state.sent
                state.buffer.withUnsafeBytes { source in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
                }
                state.sent += count
                if state.sent == state.buffer.count {
                    // All sent: a large message's storage goes with it, rather than stay with
                    // an idle subscriber for the rest of its stream.
                    state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= Self.keptCapacity)
                    state.sent = 0
                }
                return .bytes(count)
            }
            if state.finished || state.connection == nil { return .end }
            // Suspend under our lock: a `send` racing with us waits for it, then resumes.
            state.suspended = true
            state.connection?.suspend()
            return .wait
        }
    }

    /// Called when libmicrohttpd frees the response: the connection is gone.
    func close() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.closed = true
            state.connection = nil
            state.suspended = false
            state.buffer = []
            state.sent = 0
            defer { state.onClose = nil }
            return state.onClose
        }
        action?()
    }

    private static func wake(_ state: inout State) {
        if state.suspended, let connection = state.connection {
            state.suspended = false
            connection.resume()
        }
    }
}
