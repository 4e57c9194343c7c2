import Foundation
import Testing

/// README: "Every flag has an environment variable (for containers); a flag wins over the variable."
@Suite("Variables and flags")
struct EnvironmentPrecedenceTests {
    /// The exit status of a server expected to stop at start; nil, with `why` recorded and the
    /// server stopped, when it serves instead (waiting for it would wait for ever).
    private func refusal(_ arguments: [String], _ environment: [String: String], _ why: String) throws -> (
        status: Int32, server: ServerProcess
    )? {
        let (server, exited) = try ServerProcess.startOrExit(arguments: arguments, environment: environment)
        guard exited else {
            Issue.record("\(why)")
            _ = try? server.terminate()
            return nil
        }
        return (server.process.terminationStatus, server)
    }

    @Test("A flag wins over its variable, even over a variable it could not use", arguments: [
        ("PORT", "http", "--port"), ("MAX_SESSIONS", "-1", "--max-sessions"), ("CORS_ORIGINS", "app.example.com", "--cors-origins"),
    ])
    func flagWins(variable: String, bad: String, flag: String) throws {
        let value = flag == "--port" ? "0" : flag == "--max-sessions" ? "10" : "https://app.example.com"
        let (server, exited) = try ServerProcess.startOrExit(arguments: [flag, value, "--port", "0"], environment: [variable: bad])
        defer { if !exited { _ = try? server.terminate() } }
        #expect(!exited, "\(variable)=\(bad) stopped the server though \(flag) \(value) was given: \(server.errorOutput)")
    }

    @Test("A bad variable is refused naming the variable that was set, not a flag nobody passed")
    func namesTheVariable() throws {
        guard let (status, server) = try refusal([], ["PORT": "http"], "the server started with PORT=http") else { return }
        #expect(status == 2)
        #expect(server.errorOutput.contains("PORT"), "stderr: \(server.errorOutput)")
    }

    /// Settings checked together with others (the TLS pair, the TTL against its maximum) are
    /// refused after every variable is read: a container's operator, who set only variables,
    /// was told of `--tls-cert` or `--session-ttl`, flags that appear nowhere in the container.
    @Test("A variable refused with another setting is named as the variable", arguments: [
        (["TLS_CERT": "/nonexistent/cert.pem"], "TLS_CERT"),
        (["TLS_KEY": "/nonexistent/key.pem"], "TLS_KEY"),
        (["TLS_CERT": "/nonexistent/cert.pem", "TLS_KEY": "/nonexistent/key.pem"], "TLS_CERT"),
        (["SESSION_TTL": "700000"], "SESSION_TTL"),
    ])
    func namesTheVariableOfAPair(environment: [String: String], variable: String) throws {
        guard let (status, server) = try refusal(["--port", "0"], environment, "the server started with \(environment)") else { return }
        #expect(status == 2)
        #expect(server.errorOutput.contains(variable), "stderr: \(server.errorOutput)")
        #expect(!server.errorOutput.contains("--tls") && !server.errorOutput.contains("--session-ttl"), "stderr: \(server.errorOutput)")
    }

    @Test("--help answers even when a variable is bad (docker run IMAGE --help)")
    func helpDespiteVariables() throws {
        guard let (status, server) = try refusal(["--help"], ["PORT": "http"], "--help started the server") else { return }
        #expect(status == 0, "stderr: \(server.errorOutput)")
        #expect(server.output.contains("--max-sessions"))
    }

    @Test("ADMIN_TOKEN and ADMIN_TOKEN_FILE together are refused (exit 2, naming both), not one quietly ignored")
    func bothAdminTokenVariables() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try String(repeating: "f", count: 40).write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["ADMIN_TOKEN": String(repeating: "e", count: 40), "ADMIN_TOKEN_FILE": file]
        guard let (status, server) = try refusal(["--port", "0"], environment, "the server started with one of the two tokens ignored")
        else { return }
        #expect(status == 2)
        #expect(server.errorOutput.contains("ADMIN_TOKEN and ADMIN_TOKEN_FILE"), "stderr: \(server.errorOutput)")
    }
}
