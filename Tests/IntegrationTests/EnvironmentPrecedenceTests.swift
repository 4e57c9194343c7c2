import Foundation
import Testing

/// README: "Every flag has an environment variable (for containers); a flag wins over the variable."
@Suite("Variables and flags")
struct EnvironmentPrecedenceTests {
    /// Starts the binary with `environment` and waits for it to listen or to exit.
    private func launch(_ arguments: [String], _ environment: [String: String]) throws
        -> (server: ServerProcess, exited: Bool)
    {
        let server = try ServerProcess.start(arguments: arguments, environment: environment, accessLog: false)
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while Date() < deadline {
            if !server.process.isRunning { return (server, true) }
            if server.output.contains(#""event":"listening""#) { return (server, false) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (server, !server.process.isRunning)
    }

    @Test("A flag wins over its variable, even over a variable it could not use", arguments: [
        ("PORT", "http", "--port"), ("MAX_SESSIONS", "-1", "--max-sessions"), ("CORS_ORIGINS", "app.example.com", "--cors-origins"),
    ])
    func flagWins(variable: String, bad: String, flag: String) throws {
        let value = flag == "--port" ? "0" : flag == "--max-sessions" ? "10" : "https://app.example.com"
        let (server, exited) = try launch([flag, value, "--port", "0"], [variable: bad])
        defer { if !exited { _ = try? server.terminate() } }
        #expect(!exited, "\(variable)=\(bad) stopped the server though \(flag) \(value) was given: \(server.errorOutput)")
    }

    @Test("A bad variable is refused naming the variable that was set, not a flag nobody passed")
    func namesTheVariable() throws {
        let (server, exited) = try launch([], ["PORT": "http"])
        defer { if !exited { _ = try? server.terminate() } }
        #expect(exited)
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains("PORT"), "stderr: \(server.errorOutput)")
    }

    @Test("--help answers even when a variable is bad (docker run IMAGE --help)")
    func helpDespiteVariables() throws {
        let (server, exited) = try launch(["--help"], ["PORT": "http"])
        #expect(exited)
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0, "stderr: \(server.errorOutput)")
        #expect(server.output.contains("--max-sessions"))
    }
}
