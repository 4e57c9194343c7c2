import Dispatch
import Foundation
import MicroHTTP
import Synchronization
import Testing

/// A promise (`HTTPReply.later`) kept with a streaming body: the server must forget the promise
/// once the request is over, as it does a promise kept with bytes.
@Suite("A deferred response completed with a stream")
struct DeferredStreamTests {
    /// Answers every request later, from another thread, with a stream that ends at once; keeps
    /// only weak references to what it made.
    final class LaterStream: HTTPHandler {
        struct Made: @unchecked Sendable {
            weak var deferred: HTTPDeferredResponse?
            weak var stream: HTTPStream?
        }

        let made = Mutex<[Made]>([])

        func respond(to request: HTTPRequest) -> HTTPReply {
            let deferred = HTTPDeferredResponse()
            let stream = HTTPStream()
            made.withLock { $0.append(Made(deferred: deferred, stream: stream)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                stream.send(Array("data: hi\n\n".utf8))
                stream.finish()
                deferred.complete(with: HTTPResponse(status: .ok, body: .stream(stream)))
            }
            return .later(deferred)
        }

        func response(for refusal: HTTPRefusal, requestHeaders: HTTPHeaders) -> HTTPResponse {
            HTTPResponse(status: .serviceUnavailable)
        }
    }

    @Test("Once the streamed answer is sent, neither the promise nor the stream is kept")
    func nothingKept() throws {
        let handler = LaterStream()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1, shutdownGraceSeconds: 0.5), handler: handler)
        defer { server.stop() }
        let port = try server.start()
        let client = try HTTPConnection(port: port)
        for _ in 0..<3 {
            let response = try client.get("/")
            #expect(response.status == 200)
            #expect(response.text == "data: hi\n\n")
        }
        let deadline = ContinuousClock.now + .seconds(2)
        func kept() -> (deferreds: Int, streams: Int) {
            handler.made.withLock { made in
                (made.filter { $0.deferred != nil }.count, made.filter { $0.stream != nil }.count)
            }
        }
        while kept() != (0, 0), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let left = kept()
        #expect(left.deferreds == 0, "promises still held after their requests ended")
        #expect(left.streams == 0, "streams still held after their requests ended")
    }
}
