import Foundation
import Testing

/// What a client puts in its request line reaches the access log: each line must stay one
/// JSON object, and short enough that a log pipeline takes it whole: Docker's log drivers
/// split a line longer than 16 KiB into several, none of them JSON on its own.
@Suite("Access log lines of requests with long, odd targets")
struct AccessLogBoundsTests {
    static let dockerLineLimit = 16 << 10

    @Test("A request line as long as the connection allows, all control characters, logs a line under 16 KiB")
    func longTargetsStayUnderTheLineLimit() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--access-log-flush-ms", "0"])
        defer { _ = try? server.terminate() }
        let port = UInt16(try server.port())
        // Each `%01` is one byte of the decoded path and six of its JSON escape, `\u0001`:
        // a 12 KB request line (the connection holds 16 KiB) became a 21 KB log line.
        let path = "/" + String(repeating: "%01", count: 3_000)
        let method = String(repeating: "X", count: 2_000)
        for (method, path) in [("GET", path), (method, "/healthz"), (method, "/" + String(repeating: "%e2%80%a8", count: 1_300))] {
            let connection = try HTTPConnection(port: port)
            try connection.write(method, path, headers: [("Connection", "close")])
            _ = try connection.readResponse()
        }
        #expect(try server.terminate() == 0)
        let lines = server.output.split(separator: "\n")
        let requests = server.logLines().filter { $0["event"] as? String == "request" }
        #expect(requests.count == 3)
        for line in lines {
            #expect(line.utf8.count <= Self.dockerLineLimit, "a log line of \(line.utf8.count) bytes")
        }
        let first = requests.first?["path"] as? String ?? ""
        #expect(first.hasPrefix("/\u{1}\u{1}\u{1}"), "the path is logged, cut if need be: \(first.prefix(20))")
        let second = requests.dropFirst().first?["method"] as? String ?? ""
        #expect(second.hasPrefix("XXXX"))
    }
}
