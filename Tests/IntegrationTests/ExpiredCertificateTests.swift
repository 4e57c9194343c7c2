import Foundation
import Testing

/// libmicrohttpd and GnuTLS serve a certificate past its validity without a word: the server
/// logged `listening` with `"scheme": "https"` and every client that checks certificates then
/// failed its handshake, with nothing in the server's log to say why.
@Suite("An expired TLS certificate")
struct ExpiredCertificateTests {
    @Test("A certificate that expired stops the server at start, naming the flag and when it expired")
    func expiredCertificateIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-expired-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem").path
        let request = folder.appendingPathComponent("request.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        // `req -x509` takes no negative days; a request signed by `x509 -days -1` ends a day ago.
        try Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", request, "-subj", "/CN=localhost",
        ])
        try Self.openssl(["x509", "-req", "-in", request, "-signkey", key, "-out", certificate, "-days", "-1"])

        guard let server = try ServerProcess.refusal(of: ["--port", "0", "--tls-cert", certificate, "--tls-key", key])
        else { return }
        #expect(server.process.terminationStatus == 2, "\(server.output)")
        let errors = server.errorOutput
        #expect(errors.contains("--tls-cert") && errors.contains("expired"), "\(errors)")
    }

    private static func openssl(_ arguments: [String]) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl"] + arguments
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl \(arguments.first ?? "") failed")
    }
}
