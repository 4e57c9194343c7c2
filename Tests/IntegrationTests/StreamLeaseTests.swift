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

    /// A creator may ask for a `ttl` as short as 1 s; the heartbeat comes every 15. Such a
    /// session must not expire under a client following it: it is renewed every third of its
    /// time-to-live while followed, by real time, whatever the test's clock says.
    @Test("A session whose ttl is shorter than the heartbeat stays alive while its event stream is open")
    func streamKeepsShortLivedSessionAlive() throws {
        try whileFollowing { server, session in
            let stream = try EventStream(
                connection: try server.connect(), path: session.route("events"),
                headers: [("Authorization", "Bearer \(session.token)")])
            #expect(stream.head.status == 200)
            return stream
        } then: { _, client, session, _ in
            // 9 s after the last request, with a ttl of 4 and no beat.
            let read = try client.get(session.route(), token: session.token)
            #expect(read.status == 200)
        }
    }

    @Test("A long poll waiting longer than its session's ttl keeps the session alive, and a change ends it")
    func longPollKeepsShortLivedSessionAlive() throws {
        try whileFollowing { server, session in
            let poll = try server.connect()
            try poll.write(
                "GET", session.route("events") + "?after=1&wait=30", headers: [("Authorization", "Bearer \(session.token)")])
            return poll
        } then: { _, client, session, poll in
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let answer = try poll.readResponse(timeout: .seconds(10))
            #expect(answer.status == 200)
            #expect(answer.text.contains("\"pushed\""))
        }
    }

    /// A session of ttl 4 on a server whose clock the test steps, followed as `follow` does
    /// it; the clock then moves 3 s at a time, three times, each renewal awaited, before `then`.
    private func whileFollowing<Follower>(
        _ follow: (TestServer, CreatedSession) throws -> Follower,
        then: (TestServer, HTTPConnection, CreatedSession, Follower) throws -> Void
    ) throws {
        let clock = TestClock()
        let server = try TestServer(limits: Limits(sessionTTL: 4), clock: clock)
        defer { server.stop() }
        let client = try server.connect()
        let session = try client.createSession()
        let id = try #require(SessionID(rawValue: session.id))
        let follower = try follow(server, session)
        for _ in 0..<3 {
            clock.advance(by: 3)
            try expectRenewal(of: id, at: clock.now, in: server.store)
        }
        try then(server, client, session, follower)
    }

    /// Waits (real time) until the session's lease was renewed at `now`.
    private func expectRenewal(of id: SessionID, at now: Date, in store: InMemorySessionStore) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while store.lease(of: id)?.lastAccess != now {
            guard ContinuousClock.now < deadline else {
                Issue.record("the lease was not renewed: last access \(String(describing: store.lease(of: id)?.lastAccess))")
                throw ClientError.timedOut(waitingFor: "a renewal")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
