import Foundation
import Synchronization
import Testing

/// Runs the built `presentation-server` executable and reads what it logs.
final class ServerProcess {
    let process = Process()
    private let stdout = Pipe()
    private let stderr = Pipe()
    /// Both pipes are drained as the server writes, so a chatty server never blocks on a full pipe.
    private let captured = Drained()
    private let errors = Drained()

    /// Seconds to wait for the server to start listening or to stop: 15, times
    /// `TEST_TIME_SCALE` when set (scripts/sanitize sets 4: under ThreadSanitizer, with the
    /// suites running in parallel on two cores, a clean restart's test took 59 s in all and
    /// once saw a stop outlast 15 s).
    static let patience = 15 * (Double(ProcessInfo.processInfo.environment["TEST_TIME_SCALE"] ?? "") ?? 1)

    /// The binary `swift build` put beside this test bundle.
    static var executable: URL {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("presentation-server")
    }

    /// Starts `process` with no signal blocked, as a shell or a container's runtime starts the
    /// server. A child inherits the mask of the thread that spawns it, and the tests run on
    /// libdispatch's workers, which block nearly every signal: started from one of them, the
    /// server got its stop signals blocked whatever it did itself.
    static func runUnmasked(_ process: Process) throws {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// The variables the server reads a setting from: each one its `--help` names in brackets
    /// (`[MAX_SESSIONS]`), and ADMIN_TOKEN. Left in the environment, one a developer exported
    /// for `make run` (ACCESS_LOG=off, MAX_SESSIONS) changed the server under every test that
    /// does not pass that flag; a fixed list of them missed most, and every setting added later.
    static let serverVariables: Set<String> = {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--help"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return ["ADMIN_TOKEN"] }
        let help = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var names: Set<String> = ["ADMIN_TOKEN"]
        for part in help.split(separator: "[").dropFirst() {
            guard let close = part.firstIndex(of: "]") else { continue }
            let name = part[..<close]
            if let first = name.first, first.isUppercase, name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) {
                names.insert(String(name))
            }
        }
        return names
    }()

    /// This process's environment without the server's variables, storage in memory, then
    /// `environment`: what every server a test starts gets.
    static func environment(_ environment: [String: String]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        for name in serverVariables { merged.removeValue(forKey: name) }
        // Never a database in the working directory (the repository): durable tests pass their own.
        merged["STORAGE"] = "memory"
        merged.merge(environment) { $1 }
        return merged
    }

    /// Runs to completion (for --help and bad options).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let server = ServerProcess()
        try server.launch(arguments, environment: [:])
        server.process.waitUntilExit()
        server.captured.waitForEnd()
        server.errors.waitForEnd()
        return (server.process.terminationStatus, server.output, server.errorOutput)
    }

    /// `accessLog: false` for load that would fill the stdout pipe nobody reads while it runs.
    /// `through`: a command that runs the binary in its own process (`taskset -c 0`).
    /// `directory`: the working directory, the test's own (the repository) when nil.
    static func start(
        arguments: [String], environment: [String: String] = [:], accessLog: Bool = true, through: [String] = [],
        directory: String? = nil
    ) throws -> ServerProcess {
        let server = ServerProcess()
        try server.launch(
            arguments + ["--access-log", accessLog ? "on" : "off"], environment: environment, through: through,
            directory: directory)
        return server
    }

    /// Starts the binary (no access log) and waits until it listens or exits, never past
    /// `patience`: for options it may refuse at start. `exited` when it stopped by itself, its
    /// output then read to the end; else it is still running, for the caller to stop.
    static func startOrExit(arguments: [String], environment: [String: String] = [:]) throws
        -> (server: ServerProcess, exited: Bool)
    {
        let server = try start(arguments: arguments, environment: environment, accessLog: false)
        let deadline = Date().addingTimeInterval(patience)
        while Date() < deadline {
            if !server.process.isRunning {
                server.process.waitUntilExit()
                server.captured.waitForEnd()
                server.errors.waitForEnd()
                return (server, true)
            }
            if server.output.contains(#""event":"listening""#) { return (server, false) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (server, false)
    }

    /// Starts the binary with settings it must refuse at start: the stopped process, for its
    /// status and stderr; nil, with an issue recorded, when it listened instead (then stopped).
    static func refusal(
        of arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ServerProcess? {
        let (server, exited) = try startOrExit(arguments: arguments, environment: environment)
        guard exited else {
            _ = try server.terminate()
            Issue.record("the server started with \(arguments) \(environment)", sourceLocation: sourceLocation)
            return nil
        }
        return server
    }

    private func launch(
        _ arguments: [String], environment: [String: String], through: [String] = [], directory: String? = nil
    ) throws {
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if through.isEmpty {
            process.executableURL = Self.executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = through + [Self.executable.path] + arguments
        }
        process.environment = Self.environment(environment)
        process.standardOutput = stdout
        process.standardError = stderr
        try Self.runUnmasked(process)
        captured.drain(stdout.fileHandleForReading)
        errors.drain(stderr.fileHandleForReading)
    }

    /// Waits for the `listening` line and returns the port it names.
    func port() throws -> Int {
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while Date() < deadline, process.isRunning || !captured.ended {
            Thread.sleep(forTimeInterval: 0.02)
            if let line = logLines().first(where: { $0["event"] as? String == "listening" }), let port = line["port"] as? Int {
                return port
            }
        }
        process.terminate()
        throw ProcessFailure.noListeningLine(output)
    }

    /// `signal` (SIGTERM unless named), then the exit status (killed after `patience`, which
    /// fails the test). A death by a signal is `terminationReason` `.uncaughtSignal`.
    func terminate(with signal: Int32 = SIGTERM) throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try waitForExit()
    }

    /// Waits for a process already signalled to end, up to `patience` (then kills it and
    /// throws); its exit status, once `output` and `errorOutput` are read to their end. Sends
    /// nothing: a second stop signal would hurry the stop.
    func waitForExit() throws -> Int32 {
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            throw ProcessFailure.didNotStop
        }
        // Both pipes: the process's end does not mean its last bytes were read here yet, and
        // `errorOutput` is read after this as `output` is.
        captured.waitForEnd()
        errors.waitForEnd()
        return process.terminationStatus
    }

    var output: String { String(decoding: captured.data, as: UTF8.self) }

    /// What the server wrote on stderr so far.
    var errorOutput: String { String(decoding: errors.data, as: UTF8.self) }

    /// Expects the last log line to be an unclean stop whose reason names `reason`.
    func expectStoppedWithError(naming reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let last = logLines().last else {
            Issue.record("no log line", sourceLocation: sourceLocation)
            return
        }
        #expect(last["event"] as? String == "stopped", "\(last)", sourceLocation: sourceLocation)
        #expect(last["level"] as? String == "error", "\(last)", sourceLocation: sourceLocation)
        #expect((last["reason"] as? String)?.contains(reason) == true, "\(last)", sourceLocation: sourceLocation)
    }

    /// Every stdout line, parsed as the JSON object it must be.
    func logLines() -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object == nil { Issue.record("log line is not a JSON object: \(line)") }
            return object
        }
    }
}

/// One pipe's bytes, read on a thread of their own until the writer closes it.
final class Drained: Sendable {
    private let state = Mutex((data: Data(), ended: false))

    var data: Data { state.withLock { $0.data } }
    var ended: Bool { state.withLock { $0.ended } }

    func drain(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                guard !chunk.isEmpty else { break }
                state.withLock { $0.data.append(chunk) }
            }
            state.withLock { $0.ended = true }
        }
        thread.start()
    }

    /// Waits (up to `ServerProcess.patience`) for the writer to close the pipe, so nothing written is missed.
    func waitForEnd() {
        let deadline = Date().addingTimeInterval(ServerProcess.patience)
        while !ended, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }
}

/// Why the executable could not be driven.
enum ProcessFailure: Error {
    case noListeningLine(String)
    case didNotStop
}

/// curl, the client the README tells users to use, never through a proxy.
enum Curl {
    static func run(_ arguments: [String]) throws -> String {
        let running = try start(arguments)
        return running.finish()
    }

    static func start(_ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Every server the tests ask is on this machine: never through a proxy. With http_proxy
        // set (a CI runner behind a company's proxy, for apt and pip), curl sent even
        // http://127.0.0.1 requests to the proxy, which cannot reach this loopback: 000.
        process.arguments = ["curl", "--noproxy", "*", "--max-time", "70"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return Running(process: process, output: output)
    }

    /// A curl still running.
    struct Running {
        let process: Process
        let output: Pipe

        func finish() -> String {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
