import Foundation
import Testing

/// The access log is read in terminals (`docker logs`, `kubectl logs`), and the request line is
/// the client's: whatever control it puts there must reach the log escaped. JSON escapes the
/// C0 controls (ESC among them) but allows the C1 ones, U+0080 to U+009F, raw; VTE's terminals
/// and GNU screen decode those from UTF-8 and act on them, U+009B being CSI (`ESC [`).
@Suite("Access log lines of requests carrying terminal controls")
struct AccessLogControlTests {
    @Test("C1 controls a client puts in the path or the method are escaped in the log line")
    func c1ControlsAreEscaped() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--access-log-flush-ms", "0"])
        defer { _ = try? server.terminate() }
        let port = UInt16(try server.port())
        // `%C2%9B2J` decodes to CSI 2 J, "erase the screen"; `%C2%9D` is OSC, which can set a
        // window's title or, where allowed, the clipboard.
        for (method, path) in [("GET", "/%C2%9B2J%C2%9D0;owned%C2%9C"), ("G\u{9B}31mT", "/healthz")] {
            let connection = try HTTPConnection(port: port)
            try connection.write(method, path, headers: [("Connection", "close")])
            _ = try connection.readResponse()
        }
        #expect(try server.terminate() == 0)
        let requests = server.logLines().filter { $0["event"] as? String == "request" }
        // Escaped, not dropped: the line still says what was asked.
        #expect(requests.contains { $0["path"] as? String == "/\u{9B}2J\u{9D}0;owned\u{9C}" }, "\(requests)")
        #expect(requests.contains { $0["method"] as? String == "G\u{9B}31mT" }, "\(requests)")
        let raw = server.output.unicodeScalars.filter { (0x80...0x9F).contains($0.value) }
        #expect(raw.isEmpty, "C1 controls written raw: \(raw.map { String($0.value, radix: 16) })")
    }
}
