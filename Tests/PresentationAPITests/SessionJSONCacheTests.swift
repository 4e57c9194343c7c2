import Foundation
import JSON
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

    @Test("Reading more sessions than the capacity keeps no more than the capacity")
    func bounded() {
        let cache = SessionJSONCache(capacity: 32)
        for _ in 0..<500 { _ = cache.json(for: Self.session(), read: true) }
        #expect(cache.count <= 32)
        #expect(cache.count > 0)
    }
}
