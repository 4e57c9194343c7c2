import Foundation
import Testing

/// libmicrohttpd 0.9.75 asks GnuTLS for its `NORMAL` priorities, which in Debian 12's GnuTLS
/// still take TLS 1.0 and 1.1: the server completed a TLS 1.0 handshake and answered over it,
/// which RFC 8996 forbids and every TLS scanner reports.
@Suite("TLS versions")
struct TLSVersionTests {
    /// `--tls-max`'s spelling of each version, and whether the server must take it.
    @Test(
        "TLS 1.2 and 1.3 are served; TLS 1.0 and 1.1 are refused at the handshake",
        arguments: [("1.0", false), ("1.1", false), ("1.2", true), ("1.3", true)])
    func versions(version: String, served: Bool) throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--tls-cert", pair.certificate, "--tls-key", pair.key])
        defer { _ = try? server.terminate() }
        let port = try server.port()
        // Security level 0: OpenSSL 3 refuses TLS 1.0 and 1.1 on its own side at its default
        // level, and the question here is what the server takes.
        let status = try Curl.run([
            "-s", "--cacert", pair.certificate, "--tlsv\(version)", "--tls-max", version,
            "--ciphers", "DEFAULT:@SECLEVEL=0", "-o", "/dev/null", "-w", "%{http_code}",
            "https://127.0.0.1:\(port)/healthz",
        ])
        #expect(status == (served ? "200" : "000"), "TLS \(version) was answered \(status)")
    }
}
