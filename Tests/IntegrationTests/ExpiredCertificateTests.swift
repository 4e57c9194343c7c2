import Foundation
import Testing

/// libmicrohttpd and GnuTLS serve a certificate past its validity without a word: the server
/// logged `listening` with `"scheme": "https"` and every client that checks certificates then
/// failed its handshake, with nothing in the server's log to say why.
@Suite("A TLS certificate outside its validity")
struct ExpiredCertificateTests {
    @Test("A certificate that expired is served, with a warning naming when it expired")
    func expiredCertificateIsWarnedAbout() throws {
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
        let expected = try Self.notAfter(of: certificate)

        let server = try ServerProcess.start(arguments: ["--port", "0", "--tls-cert", certificate, "--tls-key", key])
        defer { _ = try? server.terminate() }
        let port = try server.port()
        // Served as GnuTLS serves it: a client that does not check certificates gets its answer.
        let health = try Curl.run(["-s", "-k", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz"])
        #expect(health == "200")
        let listening = try #require(server.logLines().first { $0["event"] as? String == "listening" })
        #expect(listening["tls_not_after"] as? String == expected)
        // Waited for: the main thread writes the warning after the listening line that `port()`
        // waited for, while other threads already serve, and the line reaches us through a pipe.
        let warning = server.waitForLine("tls_certificate_expired")
        #expect(warning?["level"] as? String == "warning", "\(server.output)")
        #expect(warning?["tls_not_after"] as? String == expected)
    }

    @Test("A certificate whose validity begins tomorrow is served, with a warning naming when it begins")
    func notYetValidCertificateIsWarnedAbout() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-early-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", file("key.pem"), "-out", file("request.pem"), "-subj", "/CN=localhost",
        ])
        // `x509` and `req` start a certificate now; `ca` takes a start date, with a database of its own.
        try "".write(toFile: file("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(toFile: file("serial"), atomically: true, encoding: .utf8)
        try """
            [ca]
            default_ca = test
            [test]
            database = \(file("index.txt"))
            new_certs_dir = \(folder.path)
            serial = \(file("serial"))
            default_md = sha256
            policy = any
            [any]
            commonName = supplied
            """.write(toFile: file("ca.cnf"), atomically: true, encoding: .utf8)
        let stamp = ISO8601DateFormatter()
        func generalizedTime(_ date: Date) -> String { stamp.string(from: date).filter { $0.isNumber } + "Z" }
        try Self.openssl([
            "ca", "-batch", "-selfsign", "-config", file("ca.cnf"), "-keyfile", file("key.pem"), "-in", file("request.pem"),
            "-out", file("cert.pem"), "-notext", "-startdate", generalizedTime(Date().addingTimeInterval(86_400)),
            "-enddate", generalizedTime(Date().addingTimeInterval(30 * 86_400)),
        ])
        let expected = try Self.date("startdate", of: file("cert.pem"))

        let server = try ServerProcess.start(arguments: [
            "--port", "0", "--tls-cert", file("cert.pem"), "--tls-key", file("key.pem"),
        ])
        defer { _ = try? server.terminate() }
        let port = try server.port()
        let health = try Curl.run(["-s", "-k", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz"])
        #expect(health == "200")
        let warning = server.waitForLine("tls_certificate_not_yet_valid")
        #expect(warning?["level"] as? String == "warning", "\(server.output)")
        #expect(warning?["tls_not_before"] as? String == expected)
        #expect(try server.terminate() == 0)
        #expect(!server.logLines().contains { $0["event"] as? String == "tls_certificate_expired" })
    }

    @Test("A certificate still valid is named in the listening line and gets no warning")
    func validCertificateIsNotWarnedAbout() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--tls-cert", pair.certificate, "--tls-key", pair.key])
        _ = try server.port()
        // Read once the server has stopped: the warning would come after the listening line,
        // and read at once its absence proved nothing.
        #expect(try server.terminate() == 0)
        let lines = server.logLines()
        let listening = try #require(lines.first { $0["event"] as? String == "listening" })
        #expect(listening["tls_not_after"] as? String == (try Self.notAfter(of: pair.certificate)))
        #expect(!lines.contains { $0["event"] as? String == "tls_certificate_expired" })
        #expect(!lines.contains { $0["event"] as? String == "tls_certificate_not_yet_valid" })
    }

    /// The certificate's notAfter as openssl reads it, in the log's ISO 8601 form.
    private static func notAfter(of certificate: String) throws -> String {
        try date("enddate", of: certificate)
    }

    /// The certificate's `startdate` or `enddate` as openssl reads it, in the log's ISO 8601 form.
    private static func date(_ name: String, of certificate: String) throws -> String {
        let text = try openssl(["x509", "-in", certificate, "-noout", "-\(name)", "-dateopt", "iso_8601"])
        // "notAfter=2026-11-26 21:33:06Z"
        let date = try #require(text.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return date.replacingOccurrences(of: " ", with: "T")
    }

    @discardableResult
    private static func openssl(_ arguments: [String]) throws -> String {
        let openssl = Process()
        let output = Pipe()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl"] + arguments
        openssl.standardOutput = output
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl \(arguments.first ?? "") failed")
        return String(decoding: data, as: UTF8.self)
    }
}
