import Foundation
import MicroHTTP
import Presentation
import PresentationAPI
import Testing

/// `--max-connections-per-ip`: how many connections one client may hold open, over the real server.
@Suite("Connections per client")
struct ConnectionLimitTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"
    /// 127.0.0.2: a second client, at another loopback address.
    static let otherAddress: UInt32 = 0x7f00_0002

    /// A connection from `source` that is answered, tried until `deadline`: the server counts a
    /// closed connection out when its loop next turns, a moment after the client closed it.
    private func answeredConnection(port: UInt16, source: UInt32? = nil, within interval: Duration) throws -> HTTPConnection? {
        let deadline = ContinuousClock.now + interval
        repeat {
            let connection = try HTTPConnection(port: port, timeout: .seconds(2), source: source)
            if let response = try? connection.get("/healthz"), response.status == 200 { return connection }
            Thread.sleep(forTimeInterval: 0.02)
        } while ContinuousClock.now < deadline
        return nil
    }

    @Test("Past its open connections a client's next one is closed at once; another client, and a freed place, get in")
    func perClient() throws {
        let counter = ConnectionsPerAddress(limit: 2)
        let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret), connectionsPerAddress: counter)
        try withServer(api: api) { server in
            let first = try server.connect()
            let second = try server.connect()
            #expect(try first.get("/healthz").status == 200)
            #expect(try second.get("/healthz").status == 200)
            let third = try server.connect()
            #expect(third.closedByServer(within: .seconds(2)), "a third connection from 127.0.0.1 must be closed")
            // Another client holds places of its own, and reads the counts.
            let other = try HTTPConnection(port: server.port, source: Self.otherAddress)
            let metrics = metricSamples(try other.get("/metrics", token: Self.secret).text)
            #expect(metrics["presentation_connection_clients"] == 2)
            #expect(metrics["presentation_connections_refused_per_client_total"] == 1)
            // The open connections still work; a closed one frees its place.
            #expect(try second.get("/healthz").status == 200)
            first.closeSocket()
            let again = try answeredConnection(port: server.port, within: .seconds(5))
            #expect(again != nil, "a place freed by a closed connection must be given again")
            // Once every connection has closed, nothing is kept.
            for connection in [second, other, again].compactMap(\.self) { connection.closeSocket() }
            let deadline = ContinuousClock.now + .seconds(5)
            while counter.counts.clients > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
            #expect(counter.counts.clients == 0)
        }
    }
}
