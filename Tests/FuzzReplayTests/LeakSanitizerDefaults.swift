/// LeakSanitizer's built-in suppressions for the test process only (the servers it starts
/// read just Tests/Sanitizers/lsan.supp); outside `make sanitize` nothing calls this.
///
/// A parked request and its session's watch hold each other (a long poll's deferred answer,
/// an event stream) until libmicrohttpd reports the request over and MicroHTTP calls
/// HTTPDeferredResponse.end or HTTPStream.close, which the server always does. Tests that call
/// PresentationAPI.respond(to:) directly (the API's tests, the fuzz replays) have no
/// libmicrohttpd to end those requests, so each such request would be reported. The servers
/// the integration tests start run these paths for real and keep LeakSanitizer's full check.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerDefaultSuppressions() -> UnsafePointer<CChar> {
    // A literal's bytes are static and NUL-terminated, so the pointer outlives the call.
    let text: StaticString = """
        leak:PresentationAPI13SessionWaiterO4wait
        leak:PresentationAPIAAC11eventStream

        """
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
