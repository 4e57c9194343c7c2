import Foundation
import Testing

/// The admin token travels in a request header, and a connection holds its headers in
/// `--connection-memory` (4 KiB at the least): a 20,000-character token was taken at start,
/// and every admin request carrying it was then refused 431, the admin routes out of reach.
/// A token is refused at start past 1,024 characters, which fit a header at any setting.
@Suite("Admin token length")
struct AdminTokenLengthTests {
    @Test("An admin token longer than a header can carry is refused at start; 1,024 characters work")
    func longest() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(String(repeating: "a", count: 20_000).utf8).write(to: file)
        if let refused = try ServerProcess.refusal(of: ["--port", "0", "--admin-token-file", file.path]) {
            #expect(refused.process.terminationStatus == 2)
            #expect(refused.errorOutput.contains("1024"), "stderr: \(refused.errorOutput)")
        }
        let token = String(repeating: "b", count: 1024)
        let server = try ServerProcess.start(arguments: ["--port", "0", "--connection-memory", "4096"], environment: ["ADMIN_TOKEN": token])
        defer { _ = try? server.terminate() }
        let status = try Curl.run([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(try server.port())/metrics",
            "-H", "Authorization: Bearer \(token)",
        ])
        #expect(status == "200")
    }
}
