import Foundation
import Testing

/// What a client that does not complete a TLS handshake gets, and what it leaves, as
/// docs/api.md ("HTTPS") tells it: libmicrohttpd closes it unanswered, logs one line whose
/// text is the same whatever went wrong, and gives its place back.
@Suite("A failed TLS handshake")
struct TLSHandshakeFailureTests {
    @Test("Plain HTTP, a refused certificate and a silent client are closed, logged alike, and free their place")
    func failedHandshakes() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        // One connection a client, so that a place not given back would lock the next one out.
        let admin = String(repeating: "a", count: 32)
        let server = try ServerProcess.start(
            arguments: [
                "--port", "0", "--tls-cert", pair.certificate, "--tls-key", pair.key,
                "--max-connections-per-ip", "1", "--connection-timeout", "2",
            ], environment: ["ADMIN_TOKEN": admin])
        defer { _ = try? server.terminate() }
        let port = try server.port()
        func served() throws -> Bool {
            try Curl.run([
                "-s", "--cacert", pair.certificate, "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz",
            ]) == "200"
        }
        // Plain HTTP sent to the HTTPS port: no answer (GnuTLS cannot read it as a handshake, and
        // libmicrohttpd has no plain answer to give), the connection closed at once.
        let plain = try HTTPConnection(port: UInt16(port))
        try plain.write("GET", "/healthz")
        #expect(plain.closedByServer(within: .seconds(1)))
        #expect(try served())
        // A client that refuses the certificate (curl without it trusted).
        #expect(try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz"]) == "000")
        #expect(try served())
        // A client that connects and never says a word: closed at the connection timeout.
        let silent = try HTTPConnection(port: UInt16(port))
        #expect(silent.closedByServer(within: .seconds(4)))
        #expect(try served())
        // Counted, as nothing else of the server's sees them: the plain request and the refusal.
        let metrics = try Curl.run([
            "-s", "--cacert", pair.certificate, "-H", "Authorization: Bearer \(admin)", "https://127.0.0.1:\(port)/metrics",
        ])
        let counted = metrics.split(separator: "\n").first { $0.hasPrefix("presentation_tls_handshakes_failed_total ") }
        #expect(counted.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 >= 2 } == true, "\(counted ?? "none")")
        #expect(try server.terminate() == 0)
        let failures = server.logLines().filter {
            $0["event"] as? String == "libmicrohttpd"
                && $0["message"] as? String == "Error: received handshake message out of context."
        }
        // The plain request and the refused certificate; the silent client is closed by the
        // timeout, without a line.
        #expect(failures.count >= 2, "\(server.output)")
    }
}
