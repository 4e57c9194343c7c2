import Foundation
import MicroHTTP
import Presentation
import PresentationAPI

/// The real server, started in-process on an ephemeral loopback port for one test.
final class TestServer: Sendable {
    let port: UInt16
    /// The sessions the server holds, for a test that must set one up as no request can
    /// (a session as an older server stored it).
    let store: InMemorySessionStore
    private let http: HTTPServer
    private let api: PresentationAPI

    /// Starts `PresentationAPI` over an in-memory store. `clock` fixes the time on the wire and
    /// of the sessions' leases; without one the server reads the real time.
    init(
        limits: Limits = Limits(),
        maxBodyBytes: Int = 1 << 20,
        api: APIConfiguration = APIConfiguration(),
        clock: TestClock? = nil,
        journal: (any SessionJournal)? = nil
    ) throws {
        let now: @Sendable () -> Date
        if let clock {
            now = { clock.now }
        } else {
            now = { Date() }
        }
        // The store's leases read the same clock: a fixed date in the past would otherwise
        // have every session expire once the real date is a day past it.
        let store = InMemorySessionStore(limits: limits, journal: journal, clock: now)
        self.store = store
        let handler = PresentationAPI(store: store, configuration: api, now: now)
        self.api = handler
        let configuration = HTTPServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            threads: 2,
            maxBodyBytes: maxBodyBytes,
            connectionTimeoutSeconds: 10,
            connectionsPerAddress: api.connectionsPerAddress,
            shutdownGraceSeconds: 2
        )
        // As the executable does: every answered request is counted for /metrics, and so is
        // every request libmicrohttpd refused itself.
        http = HTTPServer(
            configuration: configuration, handler: handler, libraryLog: { handler.record($0) },
            accessLog: { handler.record($0) })
        port = try http.start()
    }

    /// One heartbeat now, as its timer sends every `--heartbeat` seconds, for a test that
    /// steps its clock between beats.
    func beat() {
        api.sendHeartbeat()
    }

    /// Event streams open.
    var subscriberCount: Int { api.subscriberCount }

    /// Stops the server: parked requests are released, connections closed. Safe to repeat.
    func stop() {
        http.stop()
    }

    /// A new keep-alive connection to this server.
    func connect(timeout: Duration = HTTPConnection.defaultTimeout) throws -> HTTPConnection {
        try HTTPConnection(port: port, timeout: timeout)
    }
}

/// Runs `body` against a server of its own, stopped afterwards whatever happens: tests run
/// in parallel and never share one.
func withServer<Result>(
    limits: Limits = Limits(),
    maxBodyBytes: Int = 1 << 20,
    api: APIConfiguration = APIConfiguration(),
    clock: TestClock? = nil,
    _ body: (TestServer) throws -> Result
) throws -> Result {
    let server = try TestServer(limits: limits, maxBodyBytes: maxBodyBytes, api: api, clock: clock)
    defer { server.stop() }
    return try body(server)
}
