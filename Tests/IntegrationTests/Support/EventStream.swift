/// A `text/event-stream` body read as it arrives, one line or message at a time, each
/// with its own deadline.
final class EventStream {
    let head: ResponseHead
    private let connection: HTTPConnection
    /// Decoded body bytes not yet split into lines.
    private var pending: [UInt8] = []
    /// True once the server ended the body (last chunk) or closed the connection.
    private(set) var ended = false
    /// Messages read while checking for quiet, not yet handed out.
    private var ready: [ServerSentEvent] = []
    /// The message whose lines are arriving.
    private var partial = ServerSentEvent()

    /// Sends `GET path` with `Accept: text/event-stream` and reads the response head.
    init(
        connection: HTTPConnection,
        path: String,
        headers: [(String, String)] = [],
        timeout: Duration = HTTPConnection.defaultTimeout
    ) throws(ClientError) {
        self.connection = connection
        try connection.write("GET", path, headers: [("Accept", "text/event-stream")] + headers)
        head = try connection.readHead(until: .now + timeout)
    }

    /// The next comment line (`: keep-alive`), skipping the lines before it. Messages skipped
    /// on the way are not kept: for a stream that is only to beat.
    func nextComment(timeout: Duration = .seconds(3)) throws(ClientError) -> String {
        while true {
            let line = try nextLine(timeout: timeout)
            if line.hasPrefix(":") { return line }
        }
    }

    /// The next line of the body, without its line ending.
    func nextLine(timeout: Duration = .seconds(3)) throws(ClientError) -> String {
        let deadline = ContinuousClock.now + timeout
        var searched = 0
        while true {
            if let end = pending[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<end])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                pending.removeFirst(end + 1)
                return String(decoding: line, as: UTF8.self)
            }
            searched = pending.count
            guard !ended else { throw .closedByServer(waitingFor: "an event-stream line") }
            if let bytes = try readBody(until: deadline) {
                pending += bytes
            } else {
                ended = true
            }
        }
    }

    /// The next message with data, as EventSource would dispatch it: comments and blocks
    /// without data (such as `retry: 2000`) are skipped.
    func nextEvent(timeout: Duration = .seconds(3)) throws(ClientError) -> ServerSentEvent {
        if !ready.isEmpty { return ready.removeFirst() }
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timedOut(waitingFor: "an event") }
            let line = try nextLine(timeout: remaining)
            if line.hasPrefix(":") { continue }  // a comment: keep-alive
            guard line.isEmpty else {
                partial.lines.append(line)
                continue
            }
            let block = partial
            partial = ServerSentEvent()
            if block.lines.contains(where: { $0.hasPrefix("data:") }) { return block }
        }
    }

    /// The next `count` messages.
    func nextEvents(_ count: Int, timeout: Duration = .seconds(3)) throws(ClientError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for _ in 0..<count {
            events.append(try nextEvent(timeout: timeout))
        }
        return events
    }

    /// Reads until the server ends the body; true when it did before `timeout`.
    func waitForEnd(timeout: Duration = .seconds(3)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !ended {
            do {
                guard try readBody(until: deadline) != nil else { return true }
            } catch .closedByServer {
                return true
            } catch {
                return false
            }
        }
        return true
    }

    /// True when no event arrives within `interval`; one that does is kept for `nextEvent`.
    func staysQuiet(for interval: Duration) -> Bool {
        guard ready.isEmpty else { return false }
        do {
            ready.append(try nextEvent(timeout: interval))
            return false
        } catch {
            return true
        }
    }

    private func readBody(until deadline: ContinuousClock.Instant) throws(ClientError) -> [UInt8]? {
        head.isChunked ? try connection.readChunk(until: deadline) : try connection.readAvailable(until: deadline)
    }
}
