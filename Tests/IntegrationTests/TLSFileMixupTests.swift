import Foundation
import Testing

/// certbot writes `fullchain.pem`, `cert.pem` and `privkey.pem`; given a certificate as the key
/// (or the key as the certificate), GnuTLS said "The requested data were not available" or
/// "Base64 decoding error", and the server that the certificate or key was refused, its key
/// not matching: a start failure (exit 1) naming neither flag, for a file that is a value the
/// server cannot use (exit 2, naming the flag, as for a file that is not PEM).
@Suite("A TLS file that holds the other half")
struct TLSFileMixupTests {
    @Test("A certificate given as the key is refused naming --tls-key")
    func certificateAsKey() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let run = try ServerProcess.run(["--port", "0", "--tls-cert", pair.certificate, "--tls-key", pair.certificate])
        #expect(run.status == 2, "\(run.output)")
        #expect(run.errors.contains("--tls-key \(pair.certificate): expected a PEM private key"), "\(run.errors)")
    }

    @Test("A key given as the certificate is refused naming --tls-cert, by its variable when set by one")
    func keyAsCertificate() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let run = try ServerProcess.run(["--port", "0", "--tls-cert", pair.key, "--tls-key", pair.key])
        #expect(run.status == 2, "\(run.output)")
        #expect(run.errors.contains("--tls-cert \(pair.key): expected a PEM certificate"), "\(run.errors)")
        let server = try #require(
            try ServerProcess.refusal(of: ["--port", "0"], environment: ["TLS_CERT": pair.key, "TLS_KEY": pair.key]))
        #expect(try server.waitForExit() == 2)
        #expect(server.errorOutput.contains("TLS_CERT=\(pair.key): expected a PEM certificate"), "\(server.errorOutput)")
    }

    @Test("One file holding both the key and the certificate, in either order, serves as both")
    func combinedFile() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let certificate = try String(contentsOfFile: pair.certificate, encoding: .utf8)
        let key = try String(contentsOfFile: pair.key, encoding: .utf8)
        for (name, text) in [("key-first.pem", key + certificate), ("cert-first.pem", certificate + key)] {
            let path = pair.folder.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let server = try ServerProcess.start(arguments: ["--port", "0", "--tls-cert", path, "--tls-key", path])
            defer { _ = try? server.terminate() }
            let port = try server.port()
            let health = try Curl.run([
                "-s", "--cacert", pair.certificate, "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz",
            ])
            #expect(health == "200", "\(name)")
        }
    }
}
