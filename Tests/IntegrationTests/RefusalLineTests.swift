import Foundation
import Testing

/// A refused setting is told in one line that names it. A value carrying a control character
/// (an env file or a script saved with CRLF line ends: `PORT=8080\r`) was echoed raw, and at
/// a terminal its carriage return sent the rest of the line back over the start: the line
/// read ": expected a whole number from 0 to 65535", naming nothing. Such characters are
/// shown escaped.
@Suite("Refusal lines")
struct RefusalLineTests {
    @Test(
        "A value with a control character is refused in one line that shows it escaped",
        arguments: [
            ([String](), ["PORT": "8080\r"], #"PORT=8080\r: expected"#),
            (["--access-log", "off\r"], [String: String](), #"--access-log off\r: expected"#),
            (["--max-sessions", "1\n2"], [String: String](), #"--max-sessions 1\n2: expected"#),
            (["--port\r", "0"], [String: String](), #"unknown option --port\r"#),
        ])
    func escaped(arguments: [String], environment: [String: String], shown: String) throws {
        guard let server = try ServerProcess.refusal(of: arguments, environment: environment) else { return }
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains(shown), "stderr: \(server.errorOutput.debugDescription)")
        let lines = server.errorOutput.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(server.errorOutput.debugDescription)")
        let carriageReturn = server.errorOutput.unicodeScalars.contains("\r")
        #expect(!carriageReturn, "stderr: \(server.errorOutput.debugDescription)")
    }

    /// A value read from the wrong file may be megabytes: echoed whole, it was one line as long.
    @Test("A long value is shown cut, with its length")
    func longValueCut() throws {
        let value = String(repeating: "9", count: 100_000)
        guard let server = try ServerProcess.refusal(of: ["--port", value]) else { return }
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains("--port 999"), "stderr: \(server.errorOutput.prefix(300))")
        #expect(server.errorOutput.contains("… (100000 bytes): expected"), "stderr: \(server.errorOutput.prefix(300))")
        #expect(server.errorOutput.utf8.count < 400, "stderr: \(server.errorOutput.prefix(300))")
    }
}
