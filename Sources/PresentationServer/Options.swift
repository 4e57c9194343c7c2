#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import MicroHTTP
import Presentation
import PresentationAPI

/// Command-line flags and environment variables, flags winning; `--help` lists them all.
struct Options {
    var server = HTTPServerConfiguration()
    var api = APIConfiguration()
    var limits = Limits.default
    var accessLog = true
    /// How long a request's log line may wait to go out with others; nil: none waits.
    var accessLogDelay: Duration? = .milliseconds(100)
    /// The browser client's files, served at `/`; relative to the working directory.
    var publicDirectory = "Public"
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    /// Kept beside the digest it was read into, so that a start refuses it inside the public directory.
    var adminTokenFile: String?
    /// Resident bytes past which new sessions are refused (`MemoryBudget`); nil: no bound.
    /// Three quarters of what the process may use (its cgroup's memory limit, else the
    /// machine's memory) by default: the rest is the heap glibc keeps, thread stacks and the
    /// kernel's page cache of the database, and the server refuses sessions before the OOM
    /// killer ends all of them.
    var maxMemoryBytes: Int? = ProcessMemory.availableBytes.map { $0 / 4 * 3 }
    /// Bytes a second each session may have written to durable storage (`WriteBudget`); nil: no bound.
    var maxSessionWriteRate: Int? = 2 << 20
    /// Where sessions live.
    var storage = Storage.sqlite
    /// The durable store's directory, created when missing; relative to the working directory.
    var dataDirectory = "./data"
    /// Whether `--session-ttl` (or `SESSION_TTL`) was given, not left at its default.
    private var sessionTTLGiven = false
    /// The flags whose value came from their variable, and those given as flags: a refusal made
    /// once every setting is read (the TLS pair, the TTL against its maximum) names what the
    /// operator set, and a container's operator sets variables, not flags.
    private var givenByVariable: Set<String> = []
    private var givenByFlag: Set<String> = []

    /// Where sessions live: in an SQLite file in the data directory, or only in memory.
    enum Storage: String {
        case sqlite
        case memory
    }

    /// One setting: its flag, its environment variable, what it means, and how to apply it.
    private struct Setting: Sendable {
        let flag: String
        let environment: String
        let help: String
        /// Throws only OptionsError (closure literals cannot declare a typed throw here).
        let apply: @Sendable (inout Options, String) throws -> Void
    }

    private static let settings: [Setting] = [
        Setting(flag: "--host", environment: "HOST", help: "address to listen on (default 127.0.0.1; 0.0.0.0 or :: for all)") {
            guard HTTPServerConfiguration.isValidHost($1) else {
                throw OptionsError.invalid("--host", $1, "a numeric IPv4 or IPv6 address, or localhost")
            }
            $0.server.host = $1
        },
        Setting(flag: "--port", environment: "PORT", help: "port to listen on; 0 picks a free one (default 8080)") {
            $0.server.port = UInt16(try integer($1, "--port", 0...65535))
        },
        Setting(flag: "--threads", environment: "THREADS", help: "worker threads (default: one per core the process may use, after CPU affinity and cgroup quota)") {
            $0.server.threads = try integer($1, "--threads", 1...1024)
        },
        Setting(flag: "--max-body-bytes", environment: "MAX_BODY_BYTES", help: "largest request body (default 1048576)") {
            $0.server.maxBodyBytes = try integer($1, "--max-body-bytes", 64...(64 << 20))
        },
        Setting(
            flag: "--max-buffered-body-bytes", environment: "MAX_BUFFERED_BODY_BYTES",
            help: "request bodies held at once while they arrive, over all connections; past it 503 (default 268435456)"
        ) {
            $0.server.bufferedBodies = BufferedBodies(limit: try integer($1, "--max-buffered-body-bytes", 64...(1 << 40)))
        },
        Setting(
            flag: "--connection-memory", environment: "CONNECTION_MEMORY",
            help: "bytes per connection for the request line, headers and buffers; larger headers get 431 (default 16384)"
        ) {
            $0.server.connectionMemoryBytes = try integer($1, "--connection-memory", 4096...(1 << 20))
        },
        Setting(flag: "--connection-timeout", environment: "CONNECTION_TIMEOUT", help: "seconds an idle connection stays open (default 30)") {
            $0.server.connectionTimeoutSeconds = try integer($1, "--connection-timeout", 1...3600)
        },
        Setting(flag: "--max-connections", environment: "MAX_CONNECTIONS", help: "connections open at once (default 4096, or what the descriptor limit leaves room for if less)") {
            $0.server.connectionLimit = try integer($1, "--max-connections", 1...1_000_000)
        },
        Setting(flag: "--max-connections-per-ip", environment: "MAX_CONNECTIONS_PER_IP", help: "connections one client holds open, an IPv6 client by its /64; 0 for no limit (default 0)") {
            let limit = try integer($1, "--max-connections-per-ip", 0...1_000_000)
            // One counter: the server limits with it, /metrics reads it.
            $0.server.connectionsPerAddress = limit == 0 ? nil : ConnectionsPerAddress(limit: limit)
            $0.api.connectionsPerAddress = $0.server.connectionsPerAddress
        },
        Setting(
            flag: "--create-rate-per-ip", environment: "CREATE_RATE_PER_IP",
            help: "sessions one address (an IPv6 /64) may create or import a minute, 0 for no limit (default 0)"
        ) {
            let perMinute = try integer($1, "--create-rate-per-ip", 0...1_000_000)
            $0.api.creationsPerMinutePerAddress = perMinute == 0 ? nil : perMinute
        },
        Setting(
            flag: "--trusted-proxies", environment: "TRUSTED_PROXIES",
            help: "comma-separated proxy addresses or ranges (10.0.0.0/8) whose X-Forwarded-For names the client (default none)"
        ) {
            switch TrustedProxies.parse($1) {
            case .success(let proxies) where !proxies.isEmpty: $0.server.trustedProxies = proxies
            case .success: throw OptionsError.invalid("--trusted-proxies", $1, "addresses or ranges such as 10.0.0.0/8")
            case .failure(let error):
                throw OptionsError.invalid("--trusted-proxies", $1, "addresses or ranges such as 10.0.0.0/8; \(error.text) is not one")
            }
        },
        Setting(flag: "--max-sessions", environment: "MAX_SESSIONS", help: "live sessions (default 100000)") {
            $0.limits.maxSessions = try integer($1, "--max-sessions", 1...100_000_000)
        },
        Setting(flag: "--storage", environment: "STORAGE", help: "where sessions live: sqlite (durable, in --data-dir) or memory (default sqlite)") {
            guard let storage = Storage(rawValue: $1) else { throw OptionsError.invalid("--storage", $1, "sqlite or memory") }
            $0.storage = storage
        },
        Setting(flag: "--data-dir", environment: "DATA_DIR", help: "directory of the session database, created if missing (default ./data)") {
            guard !$1.isEmpty else { throw OptionsError.invalid("--data-dir", $1, "a directory") }
            $0.dataDirectory = $1
        },
        Setting(flag: "--session-ttl", environment: "SESSION_TTL", help: "seconds a session lives unused (default 86400)") {
            $0.limits.sessionTTL = try integer($1, "--session-ttl", 1...315_360_000)
            $0.sessionTTLGiven = true
        },
        Setting(flag: "--max-session-ttl", environment: "MAX_SESSION_TTL", help: "longest ttl a client may ask for at creation (default 604800)") {
            $0.limits.maxSessionTTL = try integer($1, "--max-session-ttl", 1...315_360_000)
        },
        Setting(flag: "--max-stored-bytes", environment: "MAX_STORED_BYTES", help: "bytes in the database past which new sessions get 503; sqlite storage only (default 1073741824)") {
            $0.limits.maxStoredBytes = try integer($1, "--max-stored-bytes", 1...Int.max)
        },
        Setting(
            flag: "--max-session-write-rate", environment: "MAX_SESSION_WRITE_RATE",
            help: "bytes a second one session may have written, 4 s of it at once; past it, its changes get 429; 0 for no limit; sqlite storage only (default 2097152)"
        ) {
            let rate = try integer($1, "--max-session-write-rate", 0...(1 << 40))
            guard rate == 0 || rate >= 1 << 16 else {
                throw OptionsError.invalid("--max-session-write-rate", $1, "0, or at least 65536")
            }
            $0.maxSessionWriteRate = rate == 0 ? nil : rate
        },
        Setting(
            flag: "--max-memory", environment: "MAX_MEMORY",
            help: "resident bytes past which new sessions get 503, 0 for no limit (default: 3/4 of the cgroup's memory limit, else of the machine's memory)"
        ) {
            let bytes = try integer($1, "--max-memory", 0...Int.max)
            guard bytes == 0 || bytes >= 1 << 20 else { throw OptionsError.invalid("--max-memory", $1, "0, or at least 1048576") }
            $0.maxMemoryBytes = bytes == 0 ? nil : bytes
        },
        Setting(flag: "--max-stack-length", environment: "MAX_STACK_LENGTH", help: "screens in one stack (default 64)") {
            $0.limits.maxStackLength = try integer($1, "--max-stack-length", 1...10_000)
        },
        Setting(flag: "--max-presentation-depth", environment: "MAX_PRESENTATION_DEPTH", help: "presentations stacked on each other (default 8)") {
            $0.limits.maxPresentationDepth = try integer($1, "--max-presentation-depth", 1...1_000)
        },
        Setting(flag: "--max-session-bytes", environment: "MAX_SESSION_BYTES", help: "bytes of screens, states and results in one session; its events and outcomes are trimmed to as many (default 4194304)") {
            $0.limits.maxSessionBytes = try integer($1, "--max-session-bytes", 256...(1 << 30))
        },
        Setting(flag: "--events-kept", environment: "EVENTS_KEPT", help: "events of history kept per session (default 128)") {
            $0.limits.eventsKept = try integer($1, "--events-kept", 1...1_000_000)
        },
        Setting(flag: "--max-params-depth", environment: "MAX_PARAMS_DEPTH", help: "JSON nesting allowed in a request body (default 32)") {
            $0.api.maxJSONDepth = try integer($1, "--max-params-depth", 2...512)
        },
        Setting(flag: "--max-wait", environment: "MAX_WAIT", help: "longest ?wait= in seconds (default 60)") {
            $0.api.maxWaitSeconds = try integer($1, "--max-wait", 0...3600)
        },
        Setting(flag: "--heartbeat", environment: "HEARTBEAT", help: "seconds between keep-alive comments on idle event streams (default 15)") {
            $0.api.heartbeatSeconds = Double(try integer($1, "--heartbeat", 1...300))
        },
        Setting(flag: "--public-dir", environment: "PUBLIC_DIR", help: "directory served at /, which must exist when given (default ./Public, served if it exists)") {
            $0.publicDirectory = $1
        },
        Setting(flag: "--admin-token-file", environment: "ADMIN_TOKEN_FILE", help: "file holding the admin token (32 to 1024 characters); turns on listing and metrics") {
            $0.api.adminToken = SessionTokenDigest(hashing: try adminToken(fromFile: $1))
            $0.adminTokenFile = $1
        },
        Setting(flag: "--cors-origins", environment: "CORS_ORIGINS", help: "comma-separated origins whose pages may call the API, or * (default none)") {
            let origins = $1.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
            if origins.isEmpty || origins.contains(where: { !CORSPolicy.isValidOrigin($0) }) {
                throw OptionsError.invalid(
                    "--cors-origins", $1,
                    "origins as browsers send them, such as https://app.example.com (lowercase, no path, no pattern, no default port), or *")
            }
            $0.api.cors = CORSPolicy(allowedOrigins: origins)
        },
        Setting(flag: "--tls-cert", environment: "TLS_CERT", help: "PEM certificate chain file: serve HTTPS only (with --tls-key)") {
            $0.tlsCertificatePath = $1
        },
        Setting(flag: "--tls-key", environment: "TLS_KEY", help: "PEM private key file for --tls-cert") {
            $0.tlsKeyPath = $1
        },
        Setting(flag: "--access-log", environment: "ACCESS_LOG", help: "one JSON line per request on stdout: on or off (default on)") {
            guard $1 == "on" || $1 == "off" else { throw OptionsError.invalid("--access-log", $1, "on or off") }
            $0.accessLog = $1 == "on"
        },
        Setting(
            flag: "--access-log-flush-ms", environment: "ACCESS_LOG_FLUSH_MS",
            help: "longest a request's log line waits to go out in a batch; 0 writes each at once (default 100)"
        ) {
            let milliseconds = try integer($1, "--access-log-flush-ms", 0...10_000)
            $0.accessLogDelay = milliseconds == 0 ? nil : .milliseconds(milliseconds)
        },
    ]

    /// The admin token may also come from `ADMIN_TOKEN`, but never from a flag: `ps` shows flags to every user.
    static let adminTokenVariable = "ADMIN_TOKEN"

    static let usage: String = {
        var text = """
            presentation-server: keeps the navigation state of user interfaces and serves it over HTTP.

            Usage: presentation-server [options]

            Options (each also read from the environment variable shown; a flag wins):

            """
        for setting in settings {
            let left = "  \(setting.flag) VALUE"
            let padded = left + String(repeating: " ", count: max(1, 34 - left.count))
            text += "\(padded)\(setting.help) [\(setting.environment)]\n"
        }
        // `-h` is taken too (parse), so the help names it: it lists every flag the binary takes.
        text += "  --help, -h" + String(repeating: " ", count: 22) + "show this help\n"
        text += "\nThe admin token may instead be given in \(adminTokenVariable); never as a flag, which ps shows.\n"
        return text
    }()

    /// Reads the flags (`--port 8080` or `--port=8080`; a value beginning with `--` only joined), then the environment for every setting
    /// no flag gave: a flag wins over its variable, even one it could not use, and `--help`
    /// answers whatever the environment holds. A bad variable is named as it was set.
    static func parse(_ arguments: [String], environment: [String: String]) throws -> Options? {
        var flags: [(setting: Setting, value: String)] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" { return nil }
            let (flag, inline) = split(argument)
            // Named without its value: `--admin-token=…`, the flag the server refuses to have,
            // would otherwise put the token on stderr, which a container's runtime keeps in its log.
            guard let setting = settings.first(where: { $0.flag == flag }) else { throw OptionsError.unknown(flag) }
            guard let value = inline ?? remaining.popFirst() else { throw OptionsError.missingValue(flag) }
            // A value left out made the next flag this one's value, and that flag was lost
            // without a word (`--public-dir --storage=sqlite` served from memory). A value that
            // really begins with two dashes is given joined: `--data-dir=--x`.
            if inline == nil, value.hasPrefix("--") { throw OptionsError.missingValue(flag) }
            flags.append((setting, value))
        }
        let flagged = Set(flags.map(\.setting.flag))
        var options = Options()
        for setting in settings where !flagged.contains(setting.flag) {
            guard let value = environment[setting.environment], !value.isEmpty else { continue }
            do {
                try setting.apply(&options, value)
            } catch OptionsError.invalid(_, _, let expected) {
                throw OptionsError.invalidVariable(setting.environment, value, expected)
            }
            options.givenByVariable.insert(setting.flag)
        }
        // The token file's flag wins over the token's variable too. The two variables together
        // are a mistake to report: which one is meant cannot be told, and the other would be
        // ignored without a word.
        if !flagged.contains("--admin-token-file"), let token = environment[adminTokenVariable], !token.isEmpty {
            if let file = environment["ADMIN_TOKEN_FILE"], !file.isEmpty {
                throw OptionsError.conflict("\(adminTokenVariable) and ADMIN_TOKEN_FILE are both set; give one")
            }
            options.api.adminToken = SessionTokenDigest(hashing: try checkedAdminToken(token, source: adminTokenVariable))
        }
        for (setting, value) in flags {
            try setting.apply(&options, value)
        }
        options.givenByFlag = flagged
        options.server.tls = try options.tlsCredentials()
        // The default stays under the descriptor limit (DescriptorRoom says why); a value given
        // is the operator's, taken as it is.
        if !options.given("--max-connections"), let room = DescriptorRoom.connections(threads: options.server.threads) {
            options.server.connectionLimit = min(options.server.connectionLimit, room)
        }
        try options.settle()
        return options
    }

    /// Settings that depend on others: the maximum TTL caps the default one too. A default
    /// TTL given above the maximum would not be honoured, so it is refused, not quietly cut.
    ///
    /// Durable storage needs no more workers than memory does: every request that writes
    /// (changes, creations, deletions, token rotations) parks its connection until its commit
    /// rather than hold a worker (docs/performance.md, item 34).
    private mutating func settle() throws(OptionsError) {
        if sessionTTLGiven, limits.sessionTTL > limits.maxSessionTTL {
            throw refusal(
                "--session-ttl", String(limits.sessionTTL),
                "at most \(name("--max-session-ttl", like: "--session-ttl")) (\(limits.maxSessionTTL)); raise that too")
        }
        limits.sessionTTL = min(limits.sessionTTL, limits.maxSessionTTL)
        api.bufferedBodies = server.bufferedBodies
        // Else a largest body could never be received whole.
        if server.bufferedBodies.limit < server.maxBodyBytes {
            throw refusal(
                "--max-buffered-body-bytes", String(server.bufferedBodies.limit),
                "at least \(name("--max-body-bytes", like: "--max-buffered-body-bytes")) (\(server.maxBodyBytes))")
        }
    }

    /// True when the operator set `flag`, by itself or by its variable.
    func given(_ flag: String) -> Bool { givenByFlag.contains(flag) || givenByVariable.contains(flag) }

    /// `flag` as the operator gave it: its variable when that set it. One left at its default
    /// is named as `peer` was given, the setting to change beside it.
    func name(_ flag: String, like peer: String? = nil) -> String {
        let variable = givenByVariable.contains(flag) || !givenByFlag.contains(flag) && givenByVariable.contains(peer ?? "")
        guard variable, let setting = Self.settings.first(where: { $0.flag == flag }) else { return flag }
        return setting.environment
    }

    /// A refusal of `flag`'s value, naming it as it was given.
    func refusal(_ flag: String, _ value: String, _ expected: String) -> OptionsError {
        let named = name(flag)
        return named == flag ? .invalid(flag, value, expected) : .invalidVariable(named, value, expected)
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func adminToken(fromFile path: String) throws(OptionsError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalid("--admin-token-file", path, "a readable file")
        }
        return try checkedAdminToken(
            String(String(decoding: data, as: UTF8.self).trimmingWhitespace), source: path)
    }

    /// Long enough that guessing is hopeless, and printable and short enough to fit in a header:
    /// a connection holds its headers in `--connection-memory`, 4 KiB at the least, and a longer
    /// token was taken only for every admin request carrying it to be refused 431.
    private static func checkedAdminToken(_ token: String, source: String) throws(OptionsError) -> String {
        guard (32...1024).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw .invalid("admin token", source, "from 32 to 1024 printable characters without spaces")
        }
        return token
    }

    private static func integer(_ text: String, _ flag: String, _ range: ClosedRange<Int>) throws(OptionsError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .invalid(flag, text, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// A command line the server cannot run with.
enum OptionsError: Error, CustomStringConvertible {
    case unknown(String)
    case missingValue(String)
    case invalid(String, String, String)
    /// A bad value of an environment variable: its name, its value, what was expected.
    case invalidVariable(String, String, String)
    /// Settings that cannot go together.
    case conflict(String)

    var description: String {
        switch self {
        case .unknown(let argument): "unknown option \(Self.shown(argument)) (see --help)"
        case .missingValue(let flag): "\(Self.shown(flag)) needs a value"
        case .invalid(let flag, let value, let expected): "\(flag) \(Self.shown(value)): expected \(expected)"
        case .invalidVariable(let name, let value, let expected): "\(name)=\(Self.shown(value)): expected \(expected)"
        case .conflict(let reason): reason
        }
    }

    /// What was given, its control characters escaped and cut after `shownLength` characters
    /// (`String.escapingControls`): a value read from the wrong file (a megabyte of it) was
    /// echoed whole, one line a container's log keeps.
    private static func shown(_ given: String) -> String {
        given.escapingControls(upTo: shownLength)
    }

    private static let shownLength = 120
}
