import Foundation
import Presentation
import PresentationAPI
import Testing

/// The events route answers a stream or a JSON listing for the same URL, by `Accept`, and
/// refuses by it too (a listing after a forgotten revision is 410; a stream resumes with
/// `event: reset`). RFC 9110 12.5.5: an answer chosen by a request header says so in
/// `Vary`, so that no cache hands a listing to a client that asked for the stream.
@Suite("The events route varies by Accept")
struct EventsVaryTests {
    static let origin = "https://app.example.com"

    @Test("Listings, streams and refusals of the events route carry Vary: Accept; other routes do not")
    func varyAccept() throws {
        try withServer(limits: Limits(eventsKept: 1)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            for screen in ["a", "b"] { _ = try client.post(session.route("push"), json: ["screen": screen], token: session.token) }
            let events = session.route("events")
            let listing = try client.get(events, token: session.token)
            #expect(listing.status == 200)
            #expect(listing.list("Vary") == ["accept"])
            let expired = try client.get(events + "?after=0", token: session.token)
            #expect(expired.status == 410)
            #expect(expired.list("Vary") == ["accept"])
            let unauthorized = try client.get(events, headers: [("Accept", "text/event-stream")])
            #expect(unauthorized.status == 401)
            #expect(unauthorized.list("Vary") == ["accept"])
            // A long poll, answered later.
            let waited = try client.get(events + "?after=3&wait=1", token: session.token)
            #expect(waited.status == 200)
            #expect(waited.list("Vary") == ["accept"])

            let stream = try server.connect()
            try stream.write(
                "GET", events, headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(session.token)")])
            let head = try stream.readHead(until: .now + .seconds(5))
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.list("Vary") == ["accept"])

            #expect(try client.get(session.route(), token: session.token).list("Vary") == [])
        }
    }

    /// CORS's `Vary: Origin` was added only to answers that had no `Vary` of their own, so
    /// one route's reason would have hidden the other's.
    @Test("With CORS on, the events route's answers vary by Accept and by Origin")
    func varyAcceptAndOrigin() throws {
        let api = APIConfiguration(cors: CORSPolicy(allowedOrigins: [Self.origin]))
        try withServer(api: api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let origin = [("Origin", Self.origin)]
            let listing = try client.get(session.route("events"), token: session.token, headers: origin)
            #expect(listing.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(Set(listing.list("Vary")) == ["accept", "origin"])
            let waited = try client.get(session.route("events") + "?after=1&wait=1", token: session.token, headers: origin)
            #expect(Set(waited.list("Vary")) == ["accept", "origin"])
            #expect(try client.get(session.route(), token: session.token, headers: origin).list("Vary") == ["origin"])
        }
    }
}
