import Foundation
import Testing

/// The public directory is served to anyone, without a token: a TLS key or an admin token file
/// inside it (`--public-dir .` beside `--tls-key key.pem`) was served as `GET /key.pem`, the
/// private key of the server's certificate, and `GET /admin-token`, every session's listing.
/// The server refuses that at start, as it refuses a data directory there.
@Suite("A secret file under the public directory")
struct ServedSecretsTests {
    @Test("A TLS key or admin token file the public directory would serve is refused at start, naming both")
    func refused() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let token = pair.folder.appendingPathComponent("admin-token").path
        try Data(String(repeating: "t", count: 40).utf8).write(to: URL(fileURLWithPath: token))
        let cases: [(arguments: [String], named: String)] = [
            (["--tls-cert", pair.certificate, "--tls-key", pair.key], "--tls-key"),
            (["--admin-token-file", token], "--admin-token-file"),
        ]
        for (arguments, named) in cases {
            let (server, exited) = try ServerProcess.startOrExit(
                arguments: ["--port", "0", "--storage", "memory", "--public-dir", pair.folder.path] + arguments)
            guard exited else {
                _ = try server.terminate()
                Issue.record("the server started with \(named) under its public directory")
                continue
            }
            #expect(server.process.terminationStatus == 2)
            #expect(server.errorOutput.contains("--public-dir"), "stderr: \(server.errorOutput)")
            #expect(server.errorOutput.contains(named), "stderr: \(server.errorOutput)")
        }
    }

    /// A path with a segment beginning with a dot is never served: no conflict there.
    @Test("An admin token file in a dot directory under the public one starts the server, and is not served")
    func hiddenStarts() throws {
        let data = DataDirectory()
        let hidden = data.path + "/.secrets"
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
        try Data(String(repeating: "t", count: 40).utf8).write(to: URL(fileURLWithPath: hidden + "/admin-token"))
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "memory", "--public-dir", data.path, "--admin-token-file", hidden + "/admin-token",
        ])
        #expect(!exited, "stderr: \(server.errorOutput)")
        guard !exited else { return }
        let served = try Curl.run([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(try server.port())/.secrets/admin-token",
        ])
        #expect(served == "404")
        #expect(try server.terminate() == 0)
    }
}
