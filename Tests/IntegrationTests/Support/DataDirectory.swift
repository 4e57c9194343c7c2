import Foundation
import Testing

/// A temporary data directory for a durable server, and the ways tests start, crash and break it.
final class DataDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "presentation-data-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The session database the server keeps in it.
    var databasePath: String { path + "/sessions.sqlite3" }

    /// The real binary on port 0 with durable storage here.
    func startServer(_ extra: [String] = [], accessLog: Bool = false) throws -> (ServerProcess, UInt16) {
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", path] + extra, accessLog: accessLog)
        return (server, UInt16(try server.port()))
    }

    /// `startServer()` again after a stop, for tests of what a restart reads back: nil, with
    /// the failure recorded (`why` says what it follows), when the server refuses to start.
    func restartServer(after why: String) -> (ServerProcess, UInt16)? {
        do {
            return try startServer()
        } catch {
            Issue.record("\(why), and the server did not start again: \(error)")
            return nil
        }
    }

    /// The revision a restarted server reads back for `session` (nil when it does not start,
    /// recorded as `restartServer` does); the server is stopped again.
    func revisionAfterRestart(of session: CreatedSession, after why: String) throws -> Int? {
        guard let (restarted, port) = restartServer(after: why) else { return nil }
        defer { _ = try? restarted.terminate() }
        return try HTTPConnection(port: port).fetch(session)["revision"] as? Int
    }

    /// Runs the binary on this directory expecting it to refuse to start; a server that starts
    /// anyway is stopped after 10 s and reported as such (status nil).
    func refusal(_ extra: [String] = []) throws -> (status: Int32?, errors: String) {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["--port", "0", "--storage", "sqlite", "--data-dir", path, "--access-log", "off"] + extra
        // Without the server's variables, as `ServerProcess` starts it: HOST=<hostname> (tcsh
        // exports one) had the server refuse the variable, not the damaged directory.
        process.environment = ServerProcess.environment([:])
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try ServerProcess.runUnmasked(process)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (nil, "")
        }
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}

extension ServerProcess {
    /// `kill -9`: no shutdown, no flush, no checkpoint; what was fsync'd is all that is left.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
