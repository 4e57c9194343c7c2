import Foundation
import Testing

/// docs/api.md, "A body announced past `--max-body-bytes`": a client that sends a refused body
/// whole, without waiting for `100 Continue` (every browser), gets the 413, not a reset.
/// libmicrohttpd answered such a request as soon as its headers arrived and closed the
/// connection with the body unread in the socket, which makes the kernel reset it: the
/// client's next write failed (EPIPE or ECONNRESET), and curl, which stops at a failed write,
/// reported no answer at all (1 request in 30 with its reading between writes; every time
/// for a client that writes the whole request before it reads).
@Suite("Refused bodies sent whole")
struct RefusedBodyTests {
    static let limit = 65_536
    /// More than loopback's socket buffers take in before the server reads: a server that
    /// stops reading leaves the client writing into a closed connection. Within the bytes the
    /// server reads of a refused body.
    static let bodySize = 8_000_000
    static let attempts = 5

    static func head(length: String) -> String {
        "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test("A body announced past the limit and sent whole before reading gets the 413, and the connection goes on")
    func announcedSentWhole() throws {
        try withServer(maxBodyBytes: Self.limit) { server in
            let body = [UInt8](repeating: UInt8(ascii: "a"), count: Self.bodySize)
            for attempt in 1...Self.attempts {
                let client = try server.connect()
                do {
                    try client.writeRaw(Array(Self.head(length: String(body.count)).utf8) + body)
                } catch {
                    Issue.record("attempt \(attempt): the body's write failed: \(error)")
                    continue
                }
                #expect(try client.readResponse(to: "POST").expectProblem(413, "body_too_large").int("limit") == Self.limit)
                // The body was read to its end: the next request on the connection is framed right.
                #expect(try client.get("/healthz").status == 200, "attempt \(attempt)")
            }
        }
    }

    @Test("A chunked body that passes the limit as it arrives, sent whole before reading, gets the 413")
    func chunkedSentWhole() throws {
        try withServer(maxBodyBytes: Self.limit) { server in
            let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            var request = Array("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<8 { request += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8) }
            request += Array("0\r\n\r\n".utf8)
            for attempt in 1...Self.attempts {
                let client = try server.connect()
                do {
                    try client.writeRaw(request)
                } catch {
                    Issue.record("attempt \(attempt): the body's write failed: \(error)")
                    continue
                }
                try client.readResponse(to: "POST").expectProblem(413, "body_too_large")
            }
        }
    }

    /// A chunked body announces no length, so nothing bounded how much of a refused one was
    /// read: a client that kept sending was never cut off (only one that stopped, at the
    /// connection timeout), and the server read whatever it sent. Past what an announced body
    /// is read to (16 MiB here), the connection is closed, unanswered.
    @Test("A chunked body past the limit that never ends is cut off once past what a refused body is read to")
    func endlessChunkedCutOff() throws {
        try withServer(maxBodyBytes: Self.limit) { server in
            let client = try server.connect()
            let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 16)
            let chunk = Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
            try client.writeRaw(Array("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            var sent = 0
            var cutOff = false
            // 64 MiB, four times what is read: far past what the socket buffers hold besides.
            while sent < 64 << 20 {
                do {
                    try client.writeRaw(chunk)
                } catch {
                    cutOff = true
                    break
                }
                sent += piece.count
            }
            #expect(cutOff, "all of \(sent) bytes were taken")
            #expect(sent < 32 << 20, "cut off after \(sent) bytes")
            #expect(try server.connect().get("/healthz").status == 200)
        }
    }
}
