import Synchronization

/// A response body written over time from any thread (Server-Sent Events).
///
/// The connection is suspended while there is nothing to send, so an idle subscriber
/// holds no thread and uses no CPU; `send` resumes it. A reader that falls too far
/// behind (`maxBufferedBytes` waiting when another message comes) is cut off rather than
/// buffered without bound: it reconnects and resumes.
public final class HTTPStream: Sendable {
    enum Read {
        case bytes(Int)
        case wait
        case end
    }

    private struct State {
        var buffer: [UInt8] = []
        var finished = false
        var closed = false
        var connection: ConnectionHandle?
        var suspended = false
        var onClose: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let maxBufferedBytes: Int

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
            if state.buffer.count >= maxBufferedBytes {
                state.finished = true
            } else {
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

    func attach(to connection: ConnectionHandle) {
        state.withLock { $0.connection = connection }
    }

    /// Called on the connection's thread by libmicrohttpd's content reader.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        state.withLock { state in
            if !state.buffer.isEmpty {
                let count = min(buffer.count, state.buffer.count)
                state.buffer.withUnsafeBytes { source in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<count]))
                }
                state.buffer.removeFirst(count)
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
