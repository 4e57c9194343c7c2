import Synchronization

/// A response promised now and given later, from any thread: the remote form of a future.
///
/// While it is pending, libmicrohttpd keeps the connection suspended: no worker thread is
/// held, so a thousand waiting clients cost no CPU. `complete(with:)` resumes it.
public final class HTTPDeferredResponse: Sendable {
    private struct State {
        var response: HTTPResponse?
        var connection: ConnectionHandle?
        var suspended = false
        /// The request ended (client gone, server stopping) before or after completion.
        var ended = false
        var onEnd: (@Sendable () -> Void)?
        /// Added to whichever response completes the promise.
        var extraHeaders = HTTPHeaders()
        /// Given to whichever response completes the promise that names none.
        var route: String?
    }

    private let state = Mutex(State())
    /// Whether stopping the server answers it with 503 while it is pending (a wait for
    /// something that may never come), or lets it finish within the grace period (an answer
    /// already on its way, such as a change being written, which must not be reported failed).
    public let endsWithShutdown: Bool

    public init(endsWithShutdown: Bool = true) {
        self.endsWithShutdown = endsWithShutdown
    }

    /// Completes the promise; the first completion wins. Returns false when the request
    /// was completed already or has ended, so a caller can drop its own bookkeeping.
    @discardableResult
    public func complete(with response: HTTPResponse) -> Bool {
        state.withLock { state in
            guard state.response == nil, !state.ended else { return false }
            var response = response
            if !state.extraHeaders.isEmpty { response.headers.addAbsent(state.extraHeaders) }
            if response.route == nil { response.route = state.route }
            state.response = response
            // Resuming under our lock orders it after `park`'s suspend: both take this lock
            // first and libmicrohttpd's second, so the resume can never be lost.
            if state.suspended, let connection = state.connection {
                state.suspended = false
                connection.resume()
            }
            return true
        }
    }

    /// Headers every completion gets (those it sets itself win), such as CORS headers that
    /// depend on the request rather than on the answer.
    public func addHeaders(_ headers: HTTPHeaders) {
        state.withLock { state in
            for field in headers { state.extraHeaders.add(field.name, field.value) }
            // Completed already (before the handler returned it): the response is not sent yet.
            if var response = state.response {
                response.headers.addAbsent(headers)
                state.response = response
            }
        }
    }

    /// The route the answer will be logged under (`HTTPResponse.route`), whenever it comes.
    public func setRoute(_ route: String) {
        state.withLock { state in
            state.route = route
            if state.response?.route == nil { state.response?.route = route }
        }
    }

    /// Runs `action` once the request is over, whether it was answered or the client left.
    /// Runs it at once when that already happened.
    public func onEnd(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.ended { return true }
            state.onEnd = action
            return false
        }
        if runNow { action() }
    }

    /// The response, once completed (and before the connection took it).
    public var completed: HTTPResponse? {
        state.withLock { $0.response }
    }

    /// True while nobody has completed it and the request is still open.
    public var isPending: Bool {
        state.withLock { $0.response == nil && !$0.ended }
    }

    /// What the connection's thread does with the request now.
    enum Parking {
        case respond(HTTPResponse)
        case parked
        /// The server gave up waiting (its grace period is over): close the connection unanswered.
        case abandoned
    }

    /// Called on the connection's thread: the response if it is ready; else, unless the server
    /// has given up on parked requests (`abandoning`), suspends. `abandoning` is asked under the
    /// lock `wake()` takes, so that a stop between the two cannot leave the connection suspended.
    func responseOrPark(on connection: ConnectionHandle, abandoning: () -> Bool) -> Parking {
        state.withLock { state in
            if let response = state.response { return .respond(response) }
            if abandoning() { return .abandoned }
            state.connection = connection
            state.suspended = true
            connection.suspend()
            return .parked
        }
    }

    /// Resumes the connection if it is suspended, without completing the promise: the server is
    /// stopping and will wait no longer, and libmicrohttpd cannot stop with a connection suspended.
    func wake() {
        state.withLock { state in
            if state.suspended, let connection = state.connection {
                state.suspended = false
                connection.resume()
            }
        }
    }

    /// Called when libmicrohttpd reports the request finished: forget the connection, and the
    /// answer, sent or not. Kept, it lived as long as the promise, which a long poll's timer
    /// holds until its wait is over (up to `--max-wait` after the answer went), and with it the
    /// body: a session's JSON, or a copy of it.
    func end() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.ended = true
            state.response = nil
            state.connection = nil
            state.suspended = false
            defer { state.onEnd = nil }
            return state.onEnd
        }
        action?()
    }
}
