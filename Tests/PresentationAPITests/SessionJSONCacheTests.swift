import Foundation
import JSON
import MicroHTTP
import Presentation
import Testing

@testable import PresentationAPI

import enum Presentation.Operation

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
        #expect(cache.json(for: session).bytes == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == 1)
        #expect(cache.json(for: session).bytes == Self.written(session))
        #expect(cache.count == 1)
    }

    @Test("A push's answer is kept, so that the next change can be made from it; a batch's is not")
    func pushesKeepBatchesDoNot() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        let steps = [Step(operation: .push(try ScreenSpec(name: "next")))]
        _ = try session.apply(steps, at: Date(), limits: .default)
        #expect(cache.json(for: session, changedBy: TreeLayout.Edit(steps)).bytes == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == 2)

        var other = Self.session()
        let batch = [Step(operation: .push(try ScreenSpec(name: "a"))), Step(operation: .push(try ScreenSpec(name: "b")))]
        _ = try other.apply(batch, at: Date(), limits: .default)
        #expect(TreeLayout.Edit(batch) == nil)
        #expect(cache.json(for: other, changedBy: nil).bytes == Self.written(other))
        #expect(cache.keptRevision(of: other.id) == nil)
        #expect(cache.count == 1)
    }

    @Test("A change's answer for a session being read replaces its kept JSON with the new revision's")
    func readSessionsFollowChanges() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        _ = cache.json(for: session)
        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        #expect(cache.json(for: session, changedBy: nil).bytes == Self.written(session))
        #expect(cache.keptRevision(of: session.id) == 2)
        #expect(cache.json(for: session).bytes == Self.written(session))
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
        guard let body = second.body.wholeBytes else { Issue.record("a read answered with a stream"); return }
        #expect(body == Self.written(session))
        #expect(second.status == .ok && second.headers["ETag"] == "\"1\"")
        #expect(second.headers["Content-Type"] == "application/json")

        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        _ = cache.json(for: session, changedBy: nil)
        let changed = cache.readResponse(for: session)
        #expect(changed.prepared != nil && changed.prepared !== prepared)
        #expect(changed.headers["ETag"] == "\"2\"")
        guard let changedBody = changed.body.wholeBytes else { Issue.record("a read answered with a stream"); return }
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

    @Test("Answers made from the last revision's bytes are the written ones, over 3,000 random steps of every kind")
    func editsMatchWrittenAnswers() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        _ = cache.json(for: session)
        // A fixed sequence, so that a failure repeats.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        let params: [JSONValue] = [
            .emptyObject, .object([JSONMember("id", .number("42"))]),
            .object([JSONMember("text", .string("quote \" slash \\ é → 🚀 \n"))]),
        ]
        var made = 0
        for _ in 0..<3_000 {
            let spec = try ScreenSpec(
                name: "screen\(next(5))", title: next(2) == 0 ? nil : "Title \"\(next(9))\"", params: params[next(params.count)])
            let operation: Operation =
                switch next(10) {
                case 0, 1, 2: .push(spec)
                case 3, 4: .pop(result: nil)
                case 5: .pop(result: .string("picked"))
                case 6: .present(try PresentationRequest(style: .sheet, content: .screen(spec, navigation: next(2) == 0)))
                case 7: .dismiss(presentation: nil, result: next(2) == 0 ? nil : .bool(true))
                case 8: .replace(spec)
                default: .popToRoot
                }
            let steps = [Step(operation: operation)]
            guard (try? session.apply(steps, at: Date(), limits: .default)) != nil else { continue }
            let edit = TreeLayout.Edit(steps)
            if edit != nil { made += 1 }
            #expect(cache.json(for: session, changedBy: edit).bytes == Self.written(session), "after \(operation)")
        }
        #expect(made > 500, "only \(made) answers were made from the last one")
    }

    @Test("A push or a pop edits the kept JSON in place once nothing holds it, and never an answer still being sent")
    func editsInPlaceOnlyWhenUnshared() throws {
        let cache = SessionJSONCache(capacity: 64)
        var session = Self.session()
        _ = cache.json(for: session)
        let push = [Step(operation: .push(try ScreenSpec(name: "a")))]
        let pop = [Step(operation: .pop(result: nil))]

        // An answer held, as libmicrohttpd holds one it is sending, is not edited: the next is a copy.
        _ = try session.apply(push, at: Date(), limits: .default)
        let held = cache.json(for: session, changedBy: TreeLayout.Edit(push))
        let heldBytes = held.bytes
        #expect(heldBytes == Self.written(session))
        _ = try session.apply(pop, at: Date(), limits: .default)
        weak var released: SharedBytes?
        do {
            let next = cache.json(for: session, changedBy: TreeLayout.Edit(pop))
            #expect(next !== held && next.bytes == Self.written(session))
            released = next
        }
        #expect(held.bytes == heldBytes)

        // One no longer held is edited where it is: the next answer is the same block.
        _ = try session.apply(push, at: Date(), limits: .default)
        let again = cache.json(for: session, changedBy: TreeLayout.Edit(push))
        #expect(released != nil && again === released)
        #expect(again.bytes == Self.written(session))

        // A read's answer, built once and shared by the reads after it, holds the JSON as well.
        let read = cache.readResponse(for: session)
        let readBytes = try #require(read.body.wholeBytes)
        _ = try session.apply(pop, at: Date(), limits: .default)
        #expect(cache.json(for: session, changedBy: TreeLayout.Edit(pop)).bytes == Self.written(session))
        #expect(read.body.wholeBytes == readBytes)
    }

    @Test("Reading more sessions than the capacity keeps no more than the capacity")
    func bounded() {
        let cache = SessionJSONCache(capacity: 32)
        for _ in 0..<500 { _ = cache.json(for: Self.session()) }
        #expect(cache.count <= 32)
        #expect(cache.count > 0)
    }
}

/// A change's head copies the id and creation time from the previous revision's head, and
/// writes it whole when that is not a head.
@Suite("Session head after the previous revision's")
struct SessionHeadReuseTests {
    static func head(_ session: Session) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeHead(of: session)
        return writer.bytes
    }

    @Test("Reusing the previous head gives the head written afresh, across a revision with more digits")
    func reusedHeadIsTheWrittenOne() throws {
        var session = SessionJSONCacheTests.session()
        for _ in 0..<12 {
            let previous = Self.head(session)
            _ = try session.apply(Step(operation: .push(try ScreenSpec(name: "next"))), at: Date(), limits: .default)
            var writer = JSONWriter()
            let reused = previous.withUnsafeBufferPointer { writer.writeHead(of: session, after: $0) }
            #expect(reused)
            #expect(writer.bytes == Self.head(session))
        }
        #expect(session.revision == 13)
    }

    @Test(
        "Bytes that do not begin as a head are not reused, and nothing is written",
        arguments: [
            "", "{", #"{"id":"short","revision":2,"createdAt":"2026-11-25T13:46:39.478Z","#,
            #"{"id":"SmHAIbcZsCeadltPXxnWpw","revision":,"createdAt":"2026"#,
            #"{"id":"SmHAIbcZsCeadltPXxnWpw","revision":2,"updatedAt":"2026-11-25T13:46:39.478Z","#,
        ]
    )
    func refusesOtherBytes(previous: String) {
        var writer = JSONWriter()
        let reused = Array(previous.utf8).withUnsafeBufferPointer {
            writer.writeHead(of: SessionJSONCacheTests.session(), after: $0)
        }
        #expect(!reused)
        #expect(writer.written == 0)
    }
}
