import Foundation
import Testing

/// HTTPS straight from libmicrohttpd, with a throwaway certificate made for each test.
@Suite("HTTPS")
struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, in a fresh temporary folder.
    struct Certificate {
        let folder: URL
        var certificate: String { folder.appendingPathComponent("cert.pem").path }
        var key: String { folder.appendingPathComponent("key.pem").path }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            openssl.arguments = [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", folder.appendingPathComponent("key.pem").path,
                "-out", folder.appendingPathComponent("cert.pem").path,
                "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ]
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("With a certificate and key the server speaks HTTPS, and only HTTPS")
    func https() throws {
        let pair = try Certificate()
        defer { pair.remove() }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--tls-cert", pair.certificate, "--tls-key", pair.key])
        let port = try server.port()
        #expect(server.logLines().contains { $0["event"] as? String == "listening" && $0["scheme"] as? String == "https" })
        let base = "https://127.0.0.1:\(port)"
        let health = try Curl.run(["-s", "--cacert", pair.certificate, "-o", "/dev/null", "-w", "%{http_code}", "\(base)/healthz"])
        #expect(health == "200")
        let created = try Curl.run([
            "-s", "--cacert", pair.certificate, "\(base)/v1/sessions", "-H", "Content-Type: application/json",
            "-d", #"{"root": {"screen": "inbox"}}"#,
        ])
        let session = try JSONText.object(from: Array(created.utf8))
        let token = try #require(session.string("token"))
        let id = try #require(session.string("id"))
        let read = try Curl.run([
            "-s", "--cacert", pair.certificate, "-o", "/dev/null", "-w", "%{http_code}",
            "-H", "Authorization: Bearer \(token)", "\(base)/v1/sessions/\(id)",
        ])
        #expect(read == "200")
        // The certificate is checked, not skipped: without trusting it curl refuses.
        let untrusted = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/healthz"])
        #expect(untrusted == "000")
        let plain = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz"])
        #expect(plain == "000", "plain HTTP must not be answered on an HTTPS port")
        #expect(try server.terminate() == 0)
    }

    @Test("A key that is not the certificate's, or half a setup, stops the server at start with a reason")
    func refused() throws {
        let pair = try Certificate()
        defer { pair.remove() }
        // Swapped, each file holds the other half: refused naming the flag (TLSFileMixupTests).
        let swapped = try ServerProcess.run(["--port", "0", "--tls-cert", pair.key, "--tls-key", pair.certificate])
        #expect(swapped.status == 2 && swapped.errors.contains("--tls-cert"))
        // A key that is no certificate's: GnuTLS's refusal at start.
        let other = try Certificate()
        defer { other.remove() }
        let mismatched = try ServerProcess.run(["--port", "0", "--tls-cert", pair.certificate, "--tls-key", other.key])
        #expect(mismatched.status == 1)
        #expect(mismatched.output.contains("TLS certificate or private key was refused"))
        let half = try ServerProcess.run(["--port", "0", "--tls-cert", pair.certificate])
        #expect(half.status == 2 && half.errors.contains("--tls-key"))
        let missing = try ServerProcess.run(["--port", "0", "--tls-cert", "/nonexistent.pem", "--tls-key", pair.key])
        #expect(missing.status == 2 && missing.errors.contains("a readable file"))
    }
}
