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

    /// A message queued: bytes of its own, or a run that others hold too, sent from where it is.
    public enum Message: Sendable {
        case bytes([UInt8])
        /// A run that every stream sending it shares (a revision's events a resumed stream
        /// missed): queued as a reference, so a thousand streams hold one copy.
        case shared(SharedBytes)

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .shared(let run): run.count
            }
        }

        /// The storage it holds, for `bufferCapacity`.
        var capacity: Int {
            switch self {
            case .bytes(let bytes): bytes.capacity
            case .shared(let run): run.count
            }
        }

        func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            switch self {
            case .bytes(let bytes): bytes.withUnsafeBytes(body)
            case .shared(let run): run.withUnsafeBytes { body(UnsafeRawBufferPointer($0)) }
            }
        }
    }

    private struct State {
        /// The messages queued, each kept as the array it was sent as, not copied: the same
        /// message goes to every subscriber of a session (the frame cache hands each the same
        /// array), so a thousand streams of one session hold one copy of it. Copied into one
        /// queue each, a client that opened a stream of a 3.5 MB session and stopped reading held
        /// 3.4 MiB of the server's memory, and a hundred of them 450 MB.
        var queue: [Message] = []
        /// The first message in `queue` not wholly handed to libmicrohttpd; those before it are
        /// let go (emptied) as they are, and dropped from the array in batches, so that reading a
        /// backlog of many messages does not move the rest on every one.
        var head = 0
        /// How much of `queue[head]` has been handed to libmicrohttpd.
        var offset = 0
        /// What is queued and not yet sent.
        var waiting = 0
        var finished = false
        var closed = false
        var connection: ConnectionHandle?
        var suspended = false
        var onClose: (@Sendable () -> Void)?

        mutating func append(_ messages: some Sequence<Message>) {
            for message in messages where message.count > 0 {
                queue.append(message)
                waiting += message.count
            }
        }
    }

    private let state = Mutex(State())
    private let maxBufferedBytes: Int

    public init(maxBufferedBytes: Int = 1 << 20) {
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// Queues bytes for the client. False once the stream is finished or the client is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        send(together: CollectionOfOne(bytes))
    }

    /// Queues messages for the client as one: a reader is judged behind on what waited before
    /// them, not on the first of them (a revision's events, then the session they leave).
    /// False once the stream is finished or the client is gone.
    @discardableResult
    public func send(together messages: some Collection<[UInt8]>) -> Bool {
        send(together: messages.map(Message.bytes))
    }

    /// The same for messages some of which are shared runs.
    @discardableResult
    public func send(together messages: [Message]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.closed else { return false }
            // Behind is what is still waiting, before this message: a message larger than the
            // limit (a session's JSON may be) is taken while the reader keeps up, else it would
            // end every stream at once, and every reconnection too.
            if state.waiting > maxBufferedBytes {
                state.finished = true
            } else {
                state.append(messages)
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

    /// The messages' storage the stream holds, sent or not: what an idle subscriber keeps
    /// (tests check a large message's goes once it is sent).
    var bufferCapacity: Int {
        state.withLock { state in state.queue[state.head...].reduce(0) { $0 + $1.capacity } }
    }

    /// Where each queued message's bytes are, for tests that check they are shared, not copied.
    var queuedStorage: [UnsafeRawPointer?] {
        state.withLock { state in
            state.queue[state.head...].map { message in message.withUnsafeBytes { $0.baseAddress } }
        }
    }

    func attach(to connection: ConnectionHandle) {
        state.withLock { $0.connection = connection }
    }

    /// Called on the connection's thread by libmicrohttpd's content reader: fills `buffer` from
    /// as many queued messages as it holds.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        state.withLock { state in
            if state.waiting > 0 {
                var written = 0
                while written < buffer.count, state.head < state.queue.count {
                    let start = state.offset
                    let count = min(buffer.count - written, state.queue[state.head].count - start)
                    state.queue[state.head].withUnsafeBytes { source in
                        UnsafeMutableRawBufferPointer(rebasing: buffer[written..<written + count])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
                    }
                    written += count
                    state.offset += count
                    if state.offset == state.queue[state.head].count {
                        // Sent: its storage goes (unless others still hold it), rather than stay
                        // with an idle subscriber for the rest of its stream.
                        state.queue[state.head] = .bytes([])
                        state.head += 1
                        state.offset = 0
                    }
                }
                state.waiting -= written
                if state.head == state.queue.count {
                    state.queue.removeAll(keepingCapacity: state.queue.capacity <= 64)
                    state.head = 0
                } else if state.head >= 64, state.head * 2 >= state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return .bytes(written)
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
            state.queue = []
            state.head = 0
            state.offset = 0
            state.waiting = 0
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
