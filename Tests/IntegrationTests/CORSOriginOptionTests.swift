import Foundation
import Testing

/// `--cors-origins` is matched exactly against the `Origin` a browser sends, which is
/// lowercase, without its scheme's default port, and never a pattern. An origin written
/// otherwise was taken and then matched no page at all: the operator's CORS silently off.
/// It is refused at start instead, naming the option.
@Suite("CORS origins as browsers send them")
struct CORSOriginOptionTests {
    @Test(
        "An origin no browser sends is refused at start, naming the option",
        arguments: [
            ("https://App.example.com", "https://app.example.com"),
            ("https://app.example.com:443", "https://app.example.com"),
            ("http://app.example.com:80", "http://app.example.com"),
            ("https://*.example.com", "https://app.example.com"),
        ])
    func refused(configured: String, browserSends: String) throws {
        let (server, exited) = try ServerProcess.startOrExit(arguments: ["--port", "0", "--cors-origins", configured])
        guard exited else {
            let port = try server.port()
            let allowed = try Curl.run([
                "-s", "-o", "/dev/null", "-D", "-", "-X", "OPTIONS", "http://127.0.0.1:\(port)/v1/sessions",
                "-H", "Origin: \(browserSends)", "-H", "Access-Control-Request-Method: POST",
            ]).lowercased().contains("access-control-allow-origin")
            _ = try server.terminate()
            Issue.record("\(configured) started the server; a page of \(browserSends) allowed: \(allowed)")
            return
        }
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains("--cors-origins \(configured)"), "stderr: \(server.errorOutput)")
    }

    @Test("Origins as browsers send them start the server, ports and IPv6 hosts too")
    func accepted() throws {
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--cors-origins", "https://app.example.com:8443,http://[::1]:8080,http://127.0.0.1,*",
        ])
        #expect(!exited, "stderr: \(server.errorOutput)")
        if !exited { #expect(try server.terminate() == 0) }
    }
}
