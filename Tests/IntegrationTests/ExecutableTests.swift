import Foundation
import Testing

/// The built `presentation-server` binary, run as a user or a container would run it.
@Suite("The executable")
struct ExecutableTests {
    @Test("--help lists every option and exits 0")
    func help() throws {
        let run = try ServerProcess.run(["--help"])
        #expect(run.status == 0)
        for flag in ["--host", "--port", "--threads", "--max-body-bytes", "--max-sessions", "[PORT]"] {
            #expect(run.output.contains(flag), "help lacks \(flag)")
        }
    }

    /// The help was printed and the exit was 0 whatever became of it: to a full disk or a
    /// closed pipe, a script saw success and had no help. A tool that cannot write what it was
    /// asked for says so and fails.
    @Test("--help that cannot be written exits 1 and says why")
    func helpToAFullDevice() throws {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["--help"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try ServerProcess.runUnmasked(process)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("presentation-server: cannot write the help: No space left on device"), "\(message)")
    }

    /// The tests' servers leave out of their environment every variable the server reads, read
    /// from this help: a fixed list missed most of them (ACCESS_LOG, MAX_SESSIONS, STORAGE...).
    @Test("The test harness knows every variable the help names")
    func harnessStripsEveryServerVariable() throws {
        let names = ServerProcess.serverVariables
        for name in ["HOST", "PORT", "STORAGE", "ACCESS_LOG", "MAX_SESSIONS", "MAX_MEMORY", "SESSION_TTL", "ADMIN_TOKEN", "TLS_KEY"] {
            #expect(names.contains(name), "\(name)")
        }
        let help = try ServerProcess.run(["--help"]).output
        #expect(names.allSatisfy { $0 == "ADMIN_TOKEN" || help.contains("[\($0)]") })
        #expect(names.count > 25)
    }

    /// The binary takes `-h` as it takes `--help`; the help must say so, as it lists every flag taken.
    @Test("-h answers as --help does, and the help names it")
    func shortHelp() throws {
        let short = try ServerProcess.run(["-h"])
        let long = try ServerProcess.run(["--help"])
        #expect(short.status == 0)
        #expect(short.output == long.output)
        #expect(long.output.contains("--help, -h"), "\(long.output)")
    }

    @Test("An unknown flag or a bad value exits 2 and says why")
    func badOptions() throws {
        let unknown = try ServerProcess.run(["--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("unknown option --bogus"))
        let badPort = try ServerProcess.run(["--port", "99999"])
        #expect(badPort.status == 2)
        #expect(badPort.errors.contains("--port 99999"))
    }

    @Test("--connection-memory sets how large a header block may be")
    func connectionMemory() throws {
        let tooSmall = try ServerProcess.run(["--connection-memory", "1024"])
        #expect(tooSmall.status == 2 && tooSmall.errors.contains("--connection-memory 1024"))
        let server = try ServerProcess.start(arguments: ["--port", "0", "--connection-memory", "8192"], accessLog: false)
        defer { _ = try? server.terminate() }
        let url = "http://127.0.0.1:\(try server.port())/healthz"
        let status = { (pad: Int) in
            try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", url, "-H", "X-Pad: " + String(repeating: "p", count: pad)])
        }
        #expect(try status(4000) == "200")
        #expect(try status(10_000) == "431")
        #expect(try server.terminate() == 0)
        // The 431 never reached the server, so it has no request line: libmicrohttpd's message
        // is its only trace, and names the status for a log query to find.
        let refusals = server.logLines().filter { $0["event"] as? String == "libmicrohttpd" }
        #expect(refusals.count == 1, "\(refusals)")
        #expect(refusals.first?["status"] as? Int == 431)
        #expect((refusals.first?["message"] as? String)?.contains("431") == true)
    }

    @Test("A weak admin token, a missing token file and a bad CORS origin are refused at start")
    func badSecurityOptions() throws {
        let short = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
        try Data("too-short".utf8).write(to: short)
        defer { try? FileManager.default.removeItem(at: short) }
        let refused = try ServerProcess.run(["--admin-token-file", short.path, "--port", "0"])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("from 32 to 1024 printable characters"))
        let missing = try ServerProcess.run(["--admin-token-file", "/nonexistent/admin-token"])
        #expect(missing.status == 2 && missing.errors.contains("a readable file"))
        let origin = try ServerProcess.run(["--cors-origins", "https://a.example/path"])
        #expect(origin.status == 2 && origin.errors.contains("--cors-origins"))
        let flag = try ServerProcess.run(["--admin-token", String(repeating: "a", count: 40)])
        #expect(flag.status == 2, "the token must never be a flag, where ps shows it")
    }

    @Test("An admin token file may end in a line break or carry blanks around the token")
    func adminTokenFileTrimmed() throws {
        let secret = String(repeating: "f", count: 40)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
        try Data("\n \t\(secret) \r\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--admin-token-file", file.path])
        let url = "http://127.0.0.1:\(try server.port())/metrics"
        let open = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", url, "-H", "Authorization: Bearer \(secret)"])
        #expect(open == "200")
        #expect(try server.terminate() == 0)
    }

    /// Foundation's internationalisation brings ICU, 40 MB of library and data: the server needs
    /// neither, and a build that pulls them back in (one `import Foundation`) grows the container
    /// image by about 44 MB and an idle server by about 6 MB (docs/performance.md, item 95).
    @Test("The server maps Foundation's essentials only, not all of Foundation or ICU")
    func noInternationalisation() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        _ = try server.port()
        // Read to its end: `String(contentsOfFile:)` trusts the size /proc reports and stops early.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(server.process.processIdentifier)/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        try file.close()
        #expect(maps.contains("libmicrohttpd"), "the maps read are the server's")
        for library in ["/libFoundation.so", "/libFoundationInternationalization.so", "/lib_FoundationICU.so"] {
            // An incremental build from before the imports changed may keep linking it: the
            // objects of unchanged files keep their module's old link entries. Remove .build.
            #expect(!maps.contains(library), "\(library) is loaded (a .build from before FoundationEssentials? remove it)")
        }
        #expect(try server.terminate() == 0)
    }

    @Test("The admin token from the environment turns on metrics")
    func adminTokenFromEnvironment() throws {
        let secret = String(repeating: "k", count: 40)
        let server = try ServerProcess.start(arguments: ["--port", "0"], environment: ["ADMIN_TOKEN": secret])
        let port = try server.port()
        let url = "http://127.0.0.1:\(port)/metrics"
        let open = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", url, "-H", "Authorization: Bearer \(secret)"])
        let shut = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", url])
        #expect(open == "200" && shut == "401")
        #expect(try server.terminate() == 0)
        #expect(!server.output.contains(secret))
    }

    /// One core of a larger machine (`taskset`, a container's cpuset): one worker thread, as
    /// many as the cores it may use, not one for every core online.
    @Test("Started on one core, it runs one worker thread by default; --threads still sets it")
    func threadsFollowAffinity() throws {
        for (arguments, expected) in [([String](), 1), (["--threads", "3"], 3)] {
            let server = try ServerProcess.start(
                arguments: ["--port", "0"] + arguments, accessLog: false, through: ["taskset", "-c", "0"])
            _ = try server.port()
            #expect(try server.terminate() == 0)
            let listening = server.logLines().first { $0["event"] as? String == "listening" }
            #expect(listening?["threads"] as? Int == expected, "\(server.output)")
        }
    }

    @Test("It binds port 0 from the environment, logs each request as JSON with its client, and stops on SIGTERM with 0")
    func lifecycle() throws {
        let server = try ServerProcess.start(arguments: ["--threads", "2"], environment: ["PORT": "0", "HOST": "127.0.0.1"])
        let port = try server.port()
        let health = try Curl.run([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "--interface", "127.0.0.2", "http://127.0.0.1:\(port)/healthz",
        ])
        #expect(health == "200")
        let missing = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/nope?access_token=secret"])
        #expect(missing == "404")
        // A line longer than the stack room a request's line is written in.
        let longPath = "/" + String(repeating: "long-path-", count: 40) + "\u{e9}"
        let long = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(longPath)"])
        #expect(long == "404")
        let status = try server.terminate()
        #expect(status == 0)
        let lines = server.logLines()
        let requests = lines.filter { $0["event"] as? String == "request" }
        #expect(requests.contains {
            $0["path"] as? String == "/healthz" && $0["status"] as? Int == 200 && $0["method"] as? String == "GET"
                && $0["client"] as? String == "127.0.0.2"
        })
        #expect(requests.contains { $0["path"] as? String == "/nope" && $0["status"] as? Int == 404 && $0["client"] as? String == "127.0.0.1" })
        #expect(requests.contains { $0["path"] as? String == longPath && $0["status"] as? Int == 404 })
        #expect(requests.allSatisfy { $0["duration_ms"] is Double || $0["duration_ms"] is Int })
        // Milliseconds with three decimals, and every line's time in RFC 3339 UTC with milliseconds.
        let durations = server.output.split(separator: "\n").filter { $0.contains(#""event":"request""#) }
        #expect(!durations.isEmpty && durations.allSatisfy { $0.contains(/"duration_ms":[0-9]+\.[0-9]{3}[,}]/) })
        let time = /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/
        #expect(lines.allSatisfy { ($0["time"] as? String)?.wholeMatch(of: time) != nil })
        #expect(!server.output.contains("secret"), "the query string (and a token in it) must not be logged")
        #expect(lines.last?["event"] as? String == "stopped")
    }

    @Test("Request lines go out in batches: by default within moments, at a stop all of them; 0 writes each at once")
    func accessLogBatches() throws {
        let refused = try ServerProcess.run(["--access-log-flush-ms", "10001"])
        #expect(refused.status == 2 && refused.errors.contains("--access-log-flush-ms 10001"))
        /// Whether the server's log shows a request line for `path` within `seconds` while it runs.
        func logs(_ path: String, on server: ServerProcess, within seconds: Double) throws -> Bool {
            let status = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(try server.port())\(path)"])
            #expect(status == "200")
            let deadline = Date().addingTimeInterval(seconds)
            repeat {
                if server.logLines().contains(where: { $0["event"] as? String == "request" && $0["path"] as? String == path }) {
                    return true
                }
                Thread.sleep(forTimeInterval: 0.02)
            } while Date() < deadline
            return false
        }
        for arguments in [[], ["--access-log-flush-ms", "0"]] {
            let server = try ServerProcess.start(arguments: ["--port", "0"] + arguments)
            #expect(try logs("/healthz", on: server, within: 5), "\(arguments)")
            #expect(try server.terminate() == 0)
        }
        // A line may wait as long as it is told to, and a stop still writes it, before the stop's own lines.
        let patient = try ServerProcess.start(arguments: ["--port", "0"], environment: ["ACCESS_LOG_FLUSH_MS": "10000"])
        #expect(try !logs("/readyz", on: patient, within: 0.5))
        #expect(try patient.terminate() == 0)
        let events = patient.logLines().map { $0["event"] as? String ?? "-" }
        #expect(events.suffix(3) == ["request", "stopping", "stopped"])
    }

    @Test("By default a session keeps its last 128 events; older ones are 410, and --events-kept sets it")
    func defaultKeptHistory() throws {
        for (arguments, kept) in [([String](), 128), (["--events-kept", "96"], 96)] {
            let server = try ServerProcess.start(arguments: ["--port", "0", "--storage", "memory"] + arguments, accessLog: false)
            defer { _ = try? server.terminate() }
            let base = "http://127.0.0.1:\(try server.port())/v1/sessions"
            let created = try Curl.run(["-s", base, "-H", "Content-Type: application/json", "-d", #"{"root": {"screen": "inbox"}}"#])
            let session = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
            let id = try #require(session["id"] as? String)
            let auth = "Authorization: Bearer \(try #require(session["token"] as? String))"
            // Twenty revisions of eight events (four pushes and pops) after the creation's one:
            // the history drops whole revisions, and eight divides both limits.
            let pairs = Array(repeating: #"{"op": "push", "screen": "detail"}, {"op": "pop"}"#, count: 4)
            let batch = #"{"operations": ["# + pairs.joined(separator: ", ") + "]}"
            for _ in 0..<20 {
                let status = try Curl.run([
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/\(id)/batch", "-H", auth,
                    "-H", "Content-Type: application/json", "-d", batch,
                ])
                #expect(status == "200")
            }
            let listed = try Curl.run(["-s", "\(base)/\(id)/events", "-H", auth])
            let events = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])
            #expect((events["events"] as? [Any])?.count == kept)
            let expired = try Curl.run(["-s", "-w", " %{http_code}", "\(base)/\(id)/events?after=1", "-H", auth])
            #expect(expired.hasSuffix(" 410") && expired.contains("history_expired"))
        }
    }

    @Test("CREATE_RATE_PER_IP limits the sessions each client address creates, as the binary sees addresses")
    func creationRatePerAddress() throws {
        let refused = try ServerProcess.run(["--create-rate-per-ip", "-1"])
        #expect(refused.status == 2 && refused.errors.contains("--create-rate-per-ip -1"))
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "memory"], environment: ["CREATE_RATE_PER_IP": "2"], accessLog: false)
        defer { _ = try? server.terminate() }
        let base = "http://127.0.0.1:\(try server.port())/v1/sessions"
        /// Status and Retry-After of one creation from `source`.
        func create(from source: String) throws -> String {
            try Curl.run([
                "-s", "-o", "/dev/null", "-w", "%{http_code} %header{retry-after}", "--interface", source, base,
                "-H", "Content-Type: application/json", "-d", #"{"root": {"screen": "inbox"}}"#,
            ])
        }
        #expect(try create(from: "127.0.0.1") == "201 ")
        #expect(try create(from: "127.0.0.1") == "201 ")
        #expect(try create(from: "127.0.0.1") == "429 30")
        #expect(try create(from: "127.0.0.2") == "201 ")
    }

    @Test("Behind a trusted proxy the client is the one X-Forwarded-For names, for the creation rate and the log")
    func trustedProxy() throws {
        let refused = try ServerProcess.run(["--trusted-proxies", "127.0.0.1, 10.0.0.1/8"])
        #expect(refused.status == 2 && refused.errors.contains("10.0.0.1/8 is not one"))
        // 127.0.0.1 is the proxy; 127.0.0.2 connects directly.
        let server = try ServerProcess.start(arguments: [
            "--port", "0", "--storage", "memory", "--create-rate-per-ip", "1", "--trusted-proxies", "127.0.0.1",
        ])
        let base = "http://127.0.0.1:\(try server.port())/v1/sessions"
        /// A creation from `source` with an X-Forwarded-For field for each of `forwardedFor`.
        func create(from source: String, forwardedFor: String...) throws -> String {
            try Curl.run(
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--interface", source, base]
                    + forwardedFor.flatMap { ["-H", "X-Forwarded-For: \($0)"] }
                    + ["-H", "Content-Type: application/json", "-d", #"{"root": {"screen": "inbox"}}"#])
        }
        #expect(try create(from: "127.0.0.1", forwardedFor: "203.0.113.9") == "201")
        #expect(try create(from: "127.0.0.1", forwardedFor: "203.0.113.9") == "429")
        // What the client wrote before the proxy's entry changes nothing.
        #expect(try create(from: "127.0.0.1", forwardedFor: "198.51.100.1, 203.0.113.9") == "429")
        #expect(try create(from: "127.0.0.1", forwardedFor: "203.0.113.10") == "201")
        // Nor does a field of its own before the one the proxy added: the fields are one list.
        #expect(try create(from: "127.0.0.1", forwardedFor: "203.0.113.10", "203.0.113.13") == "201")
        // A direct client cannot borrow another's allowance by naming it.
        #expect(try create(from: "127.0.0.2", forwardedFor: "203.0.113.11") == "201")
        #expect(try create(from: "127.0.0.2", forwardedFor: "203.0.113.12") == "429")
        // Behind a proxy the handler has the request's other headers as ever (a media type
        // it refuses), and the client is still the one the proxy named.
        let typed = try Curl.run(
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--interface", "127.0.0.1", base]
                + ["-H", "X-Forwarded-For: 203.0.113.14", "-H", "Content-Type: text/plain", "-d", #"{"root": {"screen": "inbox"}}"#])
        #expect(typed == "415")
        #expect(try server.terminate() == 0)
        let clients = server.logLines().filter { $0["event"] as? String == "request" }.map { $0["client"] as? String ?? "-" }
        #expect(
            clients == [
                "203.0.113.9", "203.0.113.9", "203.0.113.9", "203.0.113.10", "203.0.113.13", "127.0.0.2", "127.0.0.2",
                "203.0.113.14",
            ])
    }

    /// Whether this machine has an IPv6 loopback to listen on (CI machines may not).
    static let hasIPv6Loopback: Bool = {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }()

    @Test(
        "Over IPv6 the client's address is logged and counted as IPv6",
        .enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
    func ipv6Client() throws {
        let server = try ServerProcess.start(arguments: [
            "--host", "::1", "--port", "0", "--storage", "memory", "--create-rate-per-ip", "1",
        ])
        let base = "http://[::1]:\(try server.port())/v1/sessions"
        let create = ["-s", "-g", "-o", "/dev/null", "-w", "%{http_code}", base, "-H", "Content-Type: application/json", "-d", #"{"root": {"screen": "inbox"}}"#]
        #expect(try Curl.run(create) == "201")
        #expect(try Curl.run(create) == "429")
        #expect(try server.terminate() == 0)
        let clients = server.logLines().filter { $0["event"] as? String == "request" }.map { $0["client"] as? String ?? "-" }
        #expect(clients == ["::1", "::1"])
    }

    @Test(
        "SIGHUP, SIGINT and SIGQUIT stop it as SIGTERM does: exit 0, the waiting access log written, then stopped",
        arguments: [SIGHUP, SIGINT, SIGQUIT])
    func otherStopSignals(signal: Int32) throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--access-log-flush-ms", "10000"])
        let port = try server.port()
        let health = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz"])
        #expect(health == "200")
        #expect(try server.terminate(with: signal) == 0)
        #expect(server.process.terminationReason == .exit, "killed by signal \(server.process.terminationStatus)")
        let events = server.logLines().compactMap { $0["event"] as? String }
        #expect(events.contains("request"), "the access log's waiting line was lost")
        #expect(events.suffix(2) == ["stopping", "stopped"] || events.last == "stopped")
    }

    @Test("A refusal's line waits in the batch as request lines do, and a stop writes it")
    func refusalLinesAreBatched() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0", "--access-log-flush-ms", "10000"])
        let url = "http://127.0.0.1:\(try server.port())/healthz"
        let pad = String(repeating: "p", count: 20_000)
        #expect(try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", url, "-H", "X-Pad: \(pad)"]) == "431")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!server.output.contains("\"libmicrohttpd\""), "written at once: \(server.output)")
        #expect(try server.terminate() == 0)
        let events = server.logLines().compactMap { $0["event"] as? String }
        let refusal = try #require(events.firstIndex(of: "libmicrohttpd"), "the waiting line was lost: \(events)")
        #expect(refusal < (events.firstIndex(of: "stopped") ?? 0))
    }

    @Test("SIGTERM releases a waiting long poll and still exits 0")
    func shutdownReleasesWaiters() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        let port = try server.port()
        let created = try Curl.run([
            "-s", "http://127.0.0.1:\(port)/v1/sessions", "-H", "Content-Type: application/json",
            "-d", #"{"root": {"screen": "inbox"}}"#,
        ])
        let session = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
        let id = try #require(session["id"] as? String)
        let token = try #require(session["token"] as? String)
        let waiter = try Curl.start([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
            "http://127.0.0.1:\(port)/v1/sessions/\(id)/events?after=1&wait=60",
        ])
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        #expect(try server.terminate() == 0)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(waiter.finish() == "503")
    }
}
