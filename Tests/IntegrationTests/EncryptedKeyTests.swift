import Foundation
import Testing

/// The server has no way to be given a passphrase, so a key encrypted with one cannot be used.
/// GnuTLS refused it with "Decryption has failed", and the server said, on stderr, that the
/// certificate or key was refused and that the key must match the certificate: a start
/// failure (exit 1) pointing at the wrong cause, for what is a value it cannot use (exit 2).
@Suite("An encrypted TLS key")
struct EncryptedKeyTests {
    @Test("A passphrase-protected key, PKCS #8 or OpenSSL's older form, is refused naming --tls-key", arguments: [
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-aes256", "-pass", "pass:secret"],
        ["genrsa", "-aes256", "-passout", "pass:secret", "-traditional"],
    ])
    func encryptedKeyIsRefused(generate: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-encrypted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        try Self.openssl(generate + ["-out", key] + (generate.first == "genrsa" ? ["2048"] : []))
        try Self.openssl([
            "req", "-x509", "-key", key, "-passin", "pass:secret", "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
        ])

        let run = try ServerProcess.run(["--port", "0", "--tls-cert", certificate, "--tls-key", key])
        #expect(run.status == 2, "\(run.output)")
        #expect(run.errors.contains("--tls-key") && run.errors.contains("encrypted"), "\(run.errors)")
    }

    private static func openssl(_ arguments: [String]) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl"] + arguments
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")) failed")
    }
}
