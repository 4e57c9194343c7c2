import Foundation
import Presentation
import PresentationAPI
import Testing

/// A session someone follows live is in use: an app on screen, its event stream open, makes
/// no request for as long as the person reads, and must not find its session gone.
@Suite("Event streams and session expiry")
struct StreamLeaseTests {
    @Test("An open event stream keeps its session alive through heartbeats; one nobody follows expires")
    func streamKeepsSessionAlive() throws {
        let clock = TestClock()
        // The heartbeat's own timer is left at 15 s: the test beats by hand, between steps of the clock.
        let server = try TestServer(limits: Limits(sessionTTL: 10), clock: clock)
        defer { server.stop() }
        let client = try server.connect()
        let watched = try client.createSession()
        let idle = try client.createSession()
        let connection = try server.connect()
        let stream = try EventStream(
            connection: connection, path: watched.route("events"),
            headers: [("Authorization", "Bearer \(watched.token)")])
        #expect(stream.head.status == 200)

        // 24 s with no request on either session; the stream beats every 8.
        for _ in 0..<3 {
            clock.advance(by: 8)
            server.beat()
            #expect(try stream.nextComment() == ": keep-alive")
        }
        try client.get(idle.route(), token: idle.token).expectProblem(404, "session_not_found")
        #expect(try client.get(watched.route(), token: watched.token).status == 200)

        // Once the stream is closed, nothing keeps the session: it expires as any other.
        // (The server notices a closed stream when it writes to it: a beat.)
        connection.closeSocket()
        while server.subscriberCount > 0 {
            server.beat()
            Thread.sleep(forTimeInterval: 0.01)
        }
        clock.advance(by: 11)
        try client.get(watched.route(), token: watched.token).expectProblem(404, "session_not_found")
    }

    @Test("A stream whose token was replaced keeps the session alive no longer")
    func revokedStreamDoesNotKeepSession() throws {
        let clock = TestClock()
        let server = try TestServer(limits: Limits(sessionTTL: 10), clock: clock)
        defer { server.stop() }
        let client = try server.connect()
        let session = try client.createSession()
        let stream = try EventStream(
            connection: try server.connect(), path: session.route("events"),
            headers: [("Authorization", "Bearer \(session.token)")])
        #expect(stream.head.status == 200)
        let rotated = try client.post(session.route("token"), bytes: [], contentType: nil, token: session.token)
        #expect(rotated.status == 200)
        let token = try #require(try rotated.json()["token"] as? String)
        clock.advance(by: 8)
        server.beat()
        #expect(try stream.nextComment() == ": keep-alive")
        clock.advance(by: 3)
        try client.get(session.route(), token: token).expectProblem(404, "session_not_found")
    }
}
