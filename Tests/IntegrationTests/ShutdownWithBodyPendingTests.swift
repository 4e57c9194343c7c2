import Foundation
import Testing

/// A stop signal while clients have sent a request's headers and only part of its body.
@Suite("Stopping with request bodies still arriving")
struct ShutdownWithBodyPendingTests {
    @Test("A request whose body has not all arrived does not hold a SIGTERM for the grace period")
    func bodyStillArriving() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--threads", "1"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        // 10 bytes of 100, then the client closes its writing side.
        let halfClosed = try HTTPConnection(port: port)
        try halfClosed.writeRaw(Self.head(port: port, expectContinue: false) + Self.tenBytes)
        halfClosed.closeWriting()
        // 10 bytes of 100, then the client just stops sending. libmicrohttpd answers 100 Continue
        // once it has read the headers and called the handler a first time: the server has the
        // request. (One worker thread, so the first connection's bytes were read before.)
        let stalled = try HTTPConnection(port: port)
        try stalled.writeRaw(Self.head(port: port, expectContinue: true))
        #expect(try stalled.readHead(until: .now + .seconds(5)).status == 100)
        try stalled.writeRaw(Self.tenBytes)
        // Time for the server to read those bytes too: part of a body, not none.
        Thread.sleep(forTimeInterval: 0.1)

        let signalled = ContinuousClock.now
        #expect(try server.terminate() == 0)
        let took = ContinuousClock.now - signalled
        // The grace period is 10 s: a stop that waited for these bodies takes all of it.
        #expect(took < .seconds(5), "the stop took \(took)")
        #expect(server.logLines().last?["event"] as? String == "stopped")
        // Neither request was handled: each connection ends unanswered (or refused with 503).
        for connection in [stalled, halfClosed] {
            let answer = try? connection.readResponse(to: "POST", timeout: .seconds(2))
            #expect(answer == nil || answer?.status == 503, "answered \(answer?.status ?? 0)")
        }
    }

    private static let tenBytes = Array("{\"root\": {".utf8)

    private static func head(port: UInt16, expectContinue: Bool) -> [UInt8] {
        var head = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
        head += "Content-Length: 100\r\n"
        if expectContinue { head += "Expect: 100-continue\r\n" }
        return Array((head + "\r\n").utf8)
    }
}
