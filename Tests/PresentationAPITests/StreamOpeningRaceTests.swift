import Foundation
@testable import MicroHTTP
import Presentation
@testable import PresentationAPI
import Synchronization
import Testing

/// Opening an event stream reads the session, sends what is missed, then watches it. A change
/// landing between the read and the watch was told to no one; a deletion right after the watch
/// then ended the stream with `deleted` at the read's revision, and the change, answered 200 to
/// its client, never went out (found by reading the code in the concurrency review; the window
/// is microseconds, so the moment is made here by a store that runs the two in it).
@Suite("Opening an event stream")
struct StreamOpeningRaceTests {
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    static func send(_ api: PresentationAPI, _ method: HTTPMethod, _ path: String, json: String? = nil, token: String,
                     headers: [(String, String)] = []) -> HTTPResponse {
        var fields = HTTPHeaders()
        if json != nil { fields.add("Content-Type", "application/json") }
        fields.add("Authorization", "Bearer \(token)")
        for (name, value) in headers { fields.add(name, value) }
        let request = HTTPRequest(method: method, path: path, query: [], headers: fields, body: Array((json ?? "").utf8))
        guard case .now(let response) = api.respond(to: request) else {
            Issue.record("\(method) \(path) was not answered at once")
            return HTTPResponse(status: .internalServerError)
        }
        return response
    }

    static func create(on api: PresentationAPI) throws -> (rawID: String, token: String, id: SessionID) {
        var fields = HTTPHeaders()
        fields.add("Content-Type", "application/json")
        let request = HTTPRequest(
            method: .post, path: "/v1/sessions", query: [], headers: fields, body: Array(#"{"root": {"screen": "inbox"}}"#.utf8))
        guard case .now(let created) = api.respond(to: request) else { throw CreationNotAnswered() }
        let body = try created.jsonObject()
        let rawID = try #require(body["id"] as? String), token = try #require(body["token"] as? String)
        return (rawID, token, try #require(SessionID(rawValue: rawID)))
    }

    struct CreationNotAnswered: Error {}

    static func open(_ api: PresentationAPI, _ rawID: String, token: String) -> String? {
        let opened = send(api, .get, "/v1/sessions/\(rawID)/events", token: token, headers: [("Accept", "text/event-stream")])
        guard opened.status == .ok, case .stream(let stream) = opened.body else {
            Issue.record("not a stream: \(opened.status)")
            return nil
        }
        return String(decoding: StreamTap(stream: stream, includesSession: false, through: 1).drain(), as: UTF8.self)
    }

    @Test("A change landing while a stream opens, then a deletion, goes out before deleted, which names its revision")
    func changeThenDeletionWhileOpening() throws {
        let store = InterleavingStore(InMemorySessionStore(clock: Self.now))
        let api = PresentationAPI(store: store, configuration: APIConfiguration(), now: Self.now)
        let (rawID, token, id) = try Self.create(on: api)
        let pushed = Mutex<[Event]>([])
        store.aroundNextWatch(
            before: {
                #expect(Self.send(api, .post, "/v1/sessions/\(rawID)/push", json: #"{"screen": "a"}"#, token: token).status == .ok)
                pushed.withLock { $0 = (try? store.inner.session(id)?.events(after: 1)) ?? [] }
            },
            after: {
                #expect(Self.send(api, .delete, "/v1/sessions/\(rawID)", token: token).status == .noContent)
            })
        let text = try #require(Self.open(api, rawID, token: token))
        let events = pushed.withLock { $0 }
        #expect(events.map(\.revision) == [2])
        let expected = EventStreamFrame.messages(for: events) + EventStreamFrame.named("deleted", revision: 2)
        #expect(text.hasSuffix(String(decoding: expected, as: UTF8.self)), "the stream: \(text)")
    }

    /// Caught up from the session as it moved on, a stream whose token was replaced meanwhile
    /// ends, as one whose first look finds another token does.
    @Test("A token replaced while a stream opens ends it with revoked at the revision it had")
    func rotationWhileOpening() throws {
        let store = InterleavingStore(InMemorySessionStore(clock: Self.now))
        let api = PresentationAPI(store: store, configuration: APIConfiguration(), now: Self.now)
        let (rawID, token, _) = try Self.create(on: api)
        store.aroundNextWatch(
            before: { #expect(Self.send(api, .post, "/v1/sessions/\(rawID)/token", token: token).status == .ok) },
            after: {})
        let text = try #require(Self.open(api, rawID, token: token))
        #expect(text.hasSuffix(String(decoding: EventStreamFrame.named("revoked", revision: 1), as: UTF8.self)), "the stream: \(text)")
    }
}
