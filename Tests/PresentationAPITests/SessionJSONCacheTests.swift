import Foundation
import JSON
import MicroHTTP
import Presentation
import Testing

@testable import PresentationAPI

@Suite("Session JSON cache")
struct SessionJSONCacheTests {
    static func session() -> Session {
        Session(id: SessionID.random(), token: SessionToken.random(), root: try! ScreenSpec(name: "home"), now: Date())
    }

    static func written(_ session: Session) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(session: session)
        return writer.bytes
    }

    @Test("A read keeps the session's JSON, and a later read of that revision gets the same bytes")
    func readsKeep() {
        let cache = SessionJSONCache(capacity: 64)
        let session = Self.session()
        #expect(cache.json(for: session, read: true) == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == 1)
        #expect(cache.json(for: session, read: true) == Self.written(session))
        #expect(cache.count == 1)
    }

    @Test("A change's answer for a session nobody read keeps nothing")
    func unreadChangesKeepNothing() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        #expect(cache.json(for: session, read: false) == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == nil)
        #expect(cache.count == 0)
    }

    @Test("A change's answer for a session being read replaces its kept JSON with the new revision's")
    func readSessionsFollowChanges() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        _ = cache.json(for: session, read: true)
        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        #expect(cache.json(for: session, read: false) == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == 2)
        #expect(cache.json(for: session, read: true) == Self.written(session))
        #expect(cache.count == 1)
    }

    @Test("A read's answer is built as libmicrohttpd's response once a revision, and each new revision gets its own")
    func readsShareOneResponse() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        let first = cache.readResponse(for: session)
        let second = cache.readResponse(for: session)
        let prepared = try #require(first.prepared)
        #expect(second.prepared === prepared)
        guard case .bytes(let body) = second.body else { Issue.record("a read answered with a stream"); return }
        #expect(body == Self.written(session))
        #expect(second.status == .ok && second.headers["ETag"] == "\"1\"")
        #expect(second.headers["Content-Type"] == "application/json")

        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        _ = cache.json(for: session, read: false)
        let changed = cache.readResponse(for: session)
        #expect(changed.prepared != nil && changed.prepared !== prepared)
        #expect(changed.headers["ETag"] == "\"2\"")
        guard case .bytes(let changedBody) = changed.body else { Issue.record("a read answered with a stream"); return }
        #expect(changedBody == Self.written(session))
    }

    @Test("A response whose status, headers or body change no longer carries its prepared form; its route may")
    func changesDropThePreparedResponse() throws {
        let cache = SessionJSONCache(capacity: 64)
        let read = cache.readResponse(for: Self.session())
        #expect(read.prepared != nil)
        var routed = read
        routed.route = "/v1/sessions/{id}"
        #expect(routed.prepared != nil)
        var withHeader = read
        withHeader.headers.add("Access-Control-Allow-Origin", "https://app.example.com")
        #expect(withHeader.prepared == nil)
        var withStatus = read
        withStatus.status = .created
        #expect(withStatus.prepared == nil)
        var withBody = read
        withBody.body = .bytes([])
        #expect(withBody.prepared == nil)
    }

    @Test("Reading more sessions than the capacity keeps no more than the capacity")
    func bounded() {
        let cache = SessionJSONCache(capacity: 32)
        for _ in 0..<500 { _ = cache.json(for: Self.session(), read: true) }
        #expect(cache.count <= 32)
        #expect(cache.count > 0)
    }
}
