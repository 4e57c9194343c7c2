@testable import MicroHTTP
import Testing

/// A promise outlives its request: a long poll's timer holds it until the wait is over, up
/// to `--max-wait` after the answer went. It kept the answer all that time, and its body with
/// it (a session's JSON, which the cache could then not edit in place, or a copy of it).
@Suite("A deferred response after its request")
struct DeferredResponseEndTests {
    @Test("Once the request has ended, the promise holds its answer no more, and takes no other")
    func endedPromiseLetsGoOfItsAnswer() {
        var body = [UInt8](repeating: 7, count: 64).withUnsafeBufferPointer { SharedBytes(copying: $0) }
        let deferred = HTTPDeferredResponse()
        #expect(deferred.complete(with: HTTPResponse(status: .ok, headers: HTTPHeaders(), body: .shared(body))))
        #expect(!isKnownUniquelyReferenced(&body), "held while the connection may still take it")
        deferred.end()
        #expect(isKnownUniquelyReferenced(&body), "held after the request ended")
        #expect(deferred.completed == nil)
        #expect(!deferred.isPending)
        #expect(!deferred.complete(with: HTTPResponse(status: .ok, headers: HTTPHeaders(), body: .bytes([1]))))
    }
}
