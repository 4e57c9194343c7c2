import Foundation
import Testing

/// The Dockerfile's HEALTHCHECK, run as Docker runs it (bash inside the container, the
/// image's variables set) against the real server binary: README says every variable of the
/// configuration table works in the container, TLS_CERT and TLS_KEY among them.
@Suite("The container's health check")
struct ContainerHealthCheckTests {
    /// The HEALTHCHECK's CMD, the exec-form JSON array after `CMD` in the Dockerfile.
    static func healthCheckCommand() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dockerfile = try String(contentsOf: root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let lines = dockerfile.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("HEALTHCHECK") }, "the Dockerfile has no HEALTHCHECK")
        let command = try #require(
            lines[start...].first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("CMD [") }, "no exec-form CMD")
        let array = command.trimmingCharacters(in: .whitespaces).dropFirst("CMD ".count)
        return try #require(try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [String])
    }

    /// The health check's exit status with the container's environment (`environment`).
    static func runHealthCheck(_ environment: [String: String]) throws -> Int32 {
        let command = try healthCheckCommand()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test("It passes for a plain HTTP server on PORT, and fails once nothing listens there")
    func plain() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"], accessLog: false)
        let port = try server.port()
        #expect(try Self.runHealthCheck(["PORT": String(port)]) == 0)
        #expect(try server.terminate() == 0)
        #expect(try Self.runHealthCheck(["PORT": String(port)]) != 0)
    }

    /// The server takes an IPv6 address in brackets too (`[::1]`, as in a URL), but bash's
    /// `/dev/tcp` does not: the check must take the brackets off.
    @Test("It follows HOST when that names one address, IPv4 or IPv6", arguments: ["127.0.0.2", "::1", "[::1]"])
    func oneAddress(host: String) throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"], environment: ["HOST": host], accessLog: false)
        let port = try server.port()
        #expect(try Self.runHealthCheck(["HOST": host, "PORT": String(port)]) == 0)
        #expect(try server.terminate() == 0)
        #expect(try Self.runHealthCheck(["HOST": host, "PORT": String(port)]) != 0)
    }

    @Test("It connects to 127.0.0.1 when HOST names every address", arguments: ["::", "[::]"])
    func everyAddress(host: String) throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"], environment: ["HOST": host], accessLog: false)
        let port = try server.port()
        #expect(try Self.runHealthCheck(["HOST": host, "PORT": String(port)]) == 0)
        #expect(try server.terminate() == 0)
    }

    @Test("It passes for a healthy server configured for HTTPS with TLS_CERT and TLS_KEY")
    func https() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let environment = ["TLS_CERT": pair.certificate, "TLS_KEY": pair.key]
        let server = try ServerProcess.start(arguments: ["--port", "0"], environment: environment, accessLog: false)
        defer { _ = try? server.terminate() }
        let port = try server.port()
        // The server is up and healthy over HTTPS...
        let health = try Curl.run([
            "-s", "--cacert", pair.certificate, "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/healthz",
        ])
        #expect(health == "200")
        // ...so the image's health check, run with the container's variables, must say so.
        let status = try Self.runHealthCheck(environment.merging(["PORT": String(port)]) { $1 })
        #expect(status == 0, "the HEALTHCHECK marks a healthy HTTPS server unhealthy")
        // The server reads PORT in decimal, a leading zero and all (08080 is 8080), as the plain
        // check's /dev/tcp does; printf read it as octal (08080 refused, 010 taken for 8), and
        // the check looked for a socket on another port.
        let leadingZero = try Self.runHealthCheck(environment.merging(["PORT": "0\(port)"]) { $1 })
        #expect(leadingZero == 0, "PORT with a leading zero is read as octal")
    }

    /// libmicrohttpd takes a connection closed before a word of TLS for a handshake that failed:
    /// a check that connected and hung up logged a `libmicrohttpd` warning and counted one in
    /// `presentation_tls_handshakes_failed_total` every 15 s, the figure docs/api.md tells an
    /// operator to watch for clients refusing an expired certificate.
    @Test("Under HTTPS it leaves no failed handshake behind, and fails once nothing listens")
    func httpsLeavesNoFailedHandshake() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        let admin = String(repeating: "a", count: 32)
        let environment = ["TLS_CERT": pair.certificate, "TLS_KEY": pair.key]
        let server = try ServerProcess.start(
            arguments: ["--port", "0"], environment: environment.merging(["ADMIN_TOKEN": admin]) { $1 })
        defer { _ = try? server.terminate() }
        let port = try server.port()
        let container = environment.merging(["PORT": String(port)]) { $1 }
        for _ in 0..<3 {
            #expect(try Self.runHealthCheck(container) == 0)
        }
        // One handshake that fails for sure, after the checks: once it is counted, whatever the
        // checks left has been counted before it.
        _ = try Curl.run(["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/healthz"])
        func failed() throws -> Double? {
            let metrics = try Curl.run([
                "-s", "--cacert", pair.certificate, "-H", "Authorization: Bearer \(admin)", "https://127.0.0.1:\(port)/metrics",
            ])
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("presentation_tls_handshakes_failed_total ") }
            return line.flatMap { Double($0.split(separator: " ")[1]) }
        }
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while try failed() ?? 0 < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try failed() == 1, "the health checks were counted as failed handshakes")
        #expect(try server.terminate() == 0)
        let warnings = server.logLines().filter { $0["event"] as? String == "libmicrohttpd" }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(try Self.runHealthCheck(container) != 0)
    }
}
