import CMicroHTTPD

/// A response built into libmicrohttpd's own response object once, then sent as it is to any
/// number of clients, from any thread.
///
/// Building a response copies its body and allocates three blocks for each header, and
/// freeing it undoes all that: for a read answered from a cache, more than the rest of the
/// request (docs/performance.md, item 33). libmicrohttpd counts references to a response and
/// lets any number of connections queue the same one (its manual, "Responses"), so an answer
/// that does not change, such as a session's JSON at one revision, is built once.
public final class HTTPPreparedResponse: Sendable {
    /// What it was built from; `response` hands out copies of it that carry this object.
    private let original: HTTPResponse
    /// The `MHD_Response`, as its address's bit pattern so that the class can be Sendable.
    /// Our reference is taken by `init` and dropped by `deinit`; a connection that queued it
    /// holds one of its own until it has sent it.
    private let address: Int

    /// Nil for a streaming body, which can be sent only once, or when libmicrohttpd cannot make it.
    public init?(_ response: HTTPResponse) {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes): made = makeResponse(bytes: bytes, headers: response.headers)
        case .shared(let run): made = makeResponse(run: run, headers: response.headers)
        case .pieces(let runs): made = makeResponse(runs: runs, headers: response.headers)
        case .stream: made = nil
        }
        guard let made else { return nil }
        original = response
        address = Int(bitPattern: made)
    }

    deinit {
        MHD_destroy_response(raw)
    }

    /// The `MHD_Response`, for `MHD_queue_response`.
    var raw: OpaquePointer {
        // Never zero: `init` returned nil rather than keep a null response.
        OpaquePointer(bitPattern: address).unsafelyUnwrapped
    }

    /// The response it stands for, carrying it: sent as it is, unless its status, headers or body are changed first.
    public var response: HTTPResponse {
        var response = original
        response.prepared = self
        return response
    }
}
