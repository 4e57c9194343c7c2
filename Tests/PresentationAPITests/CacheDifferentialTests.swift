import Foundation
import JSON
@testable import MicroHTTP
import Presentation
@testable import PresentationAPI
import Synchronization
import SessionChecks
import Testing

@Suite("Cached and edited answers against fresh encodings")
struct CacheDifferentialTests {
    /// An events answer with the session, written whole here: the events' object without its
    /// closing brace, then the session, as the answer is sent in pieces.
    static func eventsAnswer(_ events: [Event], revision: Int, session: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(events: events, revision: revision)
        return writer.bytes.dropLast() + Array(#","session":"#.utf8) + session + [UInt8(ascii: "}")]
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A session's summary as docs/api.md describes it: its members before `"root"`, then the
    /// presentation a present made.
    static func summary(of whole: [UInt8], presented: String?) -> [UInt8] {
        let text = text(whole)
        var summary = String(text[..<text.range(of: ",\"root\":")!.lowerBound])
        if let presented { summary += ",\"presentation\":\"\(presented)\"" }
        return Array((summary + "}").utf8)
    }

    /// The tree of a session's JSON (`"root":` up to the closing brace).
    static func tree(of whole: [UInt8]) -> Substring {
        let text = text(whole)
        let start = text.range(of: "\"root\":")!.upperBound
        return text[start..<text.index(before: text.endIndex)]
    }

    static func run(seed: UInt64, steps: Int, limits: Limits) throws {
        var random = SplitMix64(state: seed)
        // Some runs allow bodies as deep as `--max-params-depth` does (512), and send values that deep.
        let depth = seed % 2 == 0 ? 300 : 32
        var generator = RequestGenerator(random: SplitMix64(state: seed &* 31 &+ 7), deepValues: depth > 32 ? depth - 4 : nil)
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let harness = APIHarness(limits: limits, configuration: APIConfiguration(maxJSONDepth: depth)) {
            clock.withLock { now in
                now += 0.001
                return now
            }
        }
        let created = harness.send(.post, "/v1/sessions", json: #"{"root": {"screen": "inbox", "params": {"tab": 1.50}}}"#)
        let createdBody = try created.jsonObject()
        let rawID = try #require(createdBody["id"] as? String)
        let token = try #require(createdBody["token"] as? String)
        let id = try #require(SessionID(rawValue: rawID))
        let path = "/v1/sessions/\(rawID)"

        func current() throws -> Session { try #require(harness.store.session(id)) }
        func fresh(_ session: Session) -> [UInt8] {
            var writer = JSONWriter()
            writer.write(session: session)
            return writer.bytes
        }
        func get() -> HTTPResponse { harness.send(.get, path, token: token) }
        /// A request that may wait (a long poll): its reply as the API gives it.
        func poll(_ path: String, _ query: [(name: String, value: String?)]) -> HTTPReply {
            var fields = HTTPHeaders()
            fields.add("Authorization", "Bearer \(token)")
            return harness.api.respond(to: HTTPRequest(method: .get, path: path, query: query, headers: fields, body: []))
        }

        var taps: [StreamTap] = []
        func open(includingSession: Bool, after: Int?) {
            var headers = [("Accept", "text/event-stream")]
            if let after { headers.append(("Last-Event-ID", String(after))) }
            let response = harness.send(
                .get, path + "/events", token: token, headers: headers,
                query: includingSession ? [(name: "include", value: "session")] : [])
            guard case .stream(let stream) = response.body else {
                Issue.record("seed \(seed): no stream: \(response.status) \(text(response.bodyBytes))")
                return
            }
            var tap = StreamTap(stream: stream, includesSession: includingSession, through: 0)
            let session = try! current()
            let opened = tap.drain()
            // The opening: the backlog after `after`, then the session as it stands.
            var expected = EventStreamFrame.opening
            expected += EventStreamFrame.messages(for: (try? session.events(after: after ?? session.revision)) ?? [])
            if includingSession { expected += EventStreamFrame.session(get().bodyBytes, revision: session.revision) }
            #expect(text(opened) == text(expected), "seed \(seed): stream opening after \(String(describing: after))")
            tap.through = session.revision
            taps.append(tap)
        }
        open(includingSession: true, after: nil)
        open(includingSession: false, after: nil)

        var recorded: [String: RecordedAnswer] = [:]
        var keyOrder: [String] = []
        var nextKey = 0
        var held: [HTTPResponse] = []
        var lastGet = get().bodyBytes

        for step in 1...steps {
            let before = try current()
            var headers: [(String, String)] = []
            let minimal = random.chance(30)
            if minimal { headers.append(("Prefer", "return=minimal")) }
            var (route, body) = generator.request(before)
            var replaying: RecordedAnswer?
            var reusing = false
            var key: String?
            let candidates = keyOrder.suffix(limits.repliesKept)
            if random.chance(10), let old = candidates.randomElement(using: &random) {
                key = old
                if random.chance(85) {
                    replaying = recorded[old]
                    route = replaying!.route
                    body = replaying!.body
                } else if recorded[old]!.body != body || recorded[old]!.route != route {
                    reusing = true
                } else {
                    replaying = recorded[old]
                }
            } else if random.chance(20) {
                nextKey += 1
                key = "key-\(nextKey)"
            }
            if let key { headers.append(("Idempotency-Key", key)) }
            var stale = false
            if random.chance(10), replaying == nil {
                stale = random.chance(40)
                headers.append(("If-Match", stale ? "\"\(before.revision - 1)\"" : random.pick(["\"\(before.revision)\"", "*"])))
            }
            // Long polls waiting for this change: the events, and an open presentation's status.
            var eventsPoll: HTTPDeferredResponse?
            var statusPoll: (id: String, deferred: HTTPDeferredResponse)?
            if random.chance(15) {
                let reply = poll(path + "/events", [(name: "after", value: String(before.revision)), (name: "wait", value: "30"), (name: "include", value: "session")])
                if case .later(let deferred) = reply { eventsPoll = deferred } else { Issue.record("seed \(seed) step \(step): a long poll answered at once") }
                if let open = before.topmostPresentation {
                    let reply = poll(path + "/presentations/\(open.id.rawValue)", [(name: "wait", value: "30"), (name: "after", value: String(before.revision))])
                    if case .later(let deferred) = reply { statusPoll = (open.id.rawValue, deferred) }
                }
            }
            let response = harness.send(.post, path + "/" + route, json: body.isEmpty ? nil : body, token: token, headers: headers)
            let answer = response.bodyBytes
            let label = "seed \(seed) step \(step): \(route) \(body) \(headers)"
            let after = try current()
            if random.chance(30) { held.append(response) }
            if held.count > 3 { held.removeFirst() }

            if let replaying {
                #expect(response.status == .ok, "\(label): \(text(answer))")
                #expect(response.headers["Idempotent-Replayed"] == "true", "\(label)")
                #expect(response.headers["ETag"] == "\"\(replaying.revision)\"", "\(label)")
                let expected = minimal ? Self.summary(of: replaying.answer, presented: replaying.presented) : replaying.answer
                #expect(text(answer) == text(expected), "\(label): a replay is not the first answer")
                #expect(after == before, "\(label): a replay changed the session")
            } else if reusing {
                #expect(response.status.rawValue == 422, "\(label)")
                // A body the route cannot read is refused before the key is looked up.
                let code = try? response.problemCode()
                #expect(code == "idempotency_key_reused" || ["unknown_field", "missing_field"].contains(code), "\(label)")
                #expect(after == before, "\(label)")
            } else if response.status == .ok {
                #expect(after.revision == before.revision + 1, "\(label)")
                #expect(response.headers["ETag"] == "\"\(after.revision)\"", "\(label)")
                #expect(response.headers["Idempotent-Replayed"] == nil, "\(label)")
                #expect(!stale, "\(label): a stale If-Match went through")
            } else {
                #expect(response.headers["Content-Type"] == "application/problem+json", "\(label): \(response.status)")
                #expect(after == before, "\(label): a refused change changed the session")
                if response.status.rawValue == 412 { #expect(stale && (try? response.problemCode()) == "revision_mismatch", "\(label)") }
            }

            // The session read back, cached and edited in place, against it written afresh.
            let read = get()
            let whole = read.bodyBytes
            let written = fresh(after)
            #expect(read.status == .ok)
            #expect(read.headers["ETag"] == "\"\(after.revision)\"", "\(label)")
            #expect(text(whole) == text(written), "\(label): GET differs from the session written afresh")
            if response.status != .ok || replaying != nil {
                #expect(text(whole) == text(lastGet), "\(label): the tree changed without a change")
            }
            if response.status == .ok, replaying == nil {
                // The change's own answer: the session, its summary, or the session and the new presentation.
                let events = try after.events(after: before.revision)
                var presented: String?
                for case .presented(let id, _, _, _, _) in events.map(\.kind) { presented = id.rawValue }
                var expectedWhole = written
                if let presented {
                    expectedWhole.removeLast()
                    expectedWhole += Array(",\"presentation\":\"\(presented)\"}".utf8)
                }
                if minimal {
                    var summary = JSONWriter()
                    summary.write(summaryOf: after, presented: presented.flatMap(PresentationID.init(rawValue:)))
                    #expect(text(answer) == text(summary.bytes), "\(label): minimal answer")
                    #expect(response.headers["Preference-Applied"] == "return=minimal", "\(label)")
                    let cut = Self.summary(of: written, presented: presented)
                    #expect(text(cut) == text(summary.bytes), "\(label): the summary is not the session without its root")
                } else {
                    #expect(text(answer) == text(expectedWhole), "\(label): the change's answer differs from the session")
                }
                if let key {
                    recorded[key] = RecordedAnswer(presented: presented, route: route, body: body, answer: expectedWhole, revision: after.revision)
                    keyOrder.removeAll { $0 == key }
                    keyOrder.append(key)
                }
            }
            lastGet = whole
            if random.chance(40) { held.append(read) }

            // Conditional reads.
            let unchanged = harness.send(.get, path, token: token, headers: [("If-None-Match", random.pick(["\"\(after.revision)\"", "W/\"\(after.revision)\""]))])
            #expect(unchanged.status == .notModified, "\(label)")
            #expect(unchanged.headers["ETag"] == "\"\(after.revision)\"", "\(label)")
            let changed = harness.send(.get, path, token: token, headers: [("If-None-Match", "\"\(after.revision + 1)\", \"\(max(0, after.revision - 1))\"")])
            #expect(text(changed.bodyBytes) == text(written), "\(label): a conditional read")

            if let eventsPoll {
                let changed = after.revision > before.revision
                #expect((eventsPoll.completed != nil) == changed, "\(label): a long poll")
                if let answered = eventsPoll.completed {
                    let expected = Self.eventsAnswer(try after.events(after: before.revision), revision: after.revision, session: written)
                    #expect(text(answered.bodyBytes) == text(expected), "\(label): a long poll's answer")
                    #expect(answered.headers["ETag"] == "\"\(after.revision)\"", "\(label)")
                }
            }
            if let (presentation, deferred) = statusPoll {
                let now = harness.send(.get, path + "/presentations/\(presentation)", token: token)
                let status = (try? now.jsonObject())?["status"] as? String
                let emitted = ((try? now.jsonObject())?["emitted"] as? [String: Any])?["revision"] as? Int
                let due = status != "presented" || (emitted ?? 0) > before.revision
                #expect((deferred.completed != nil) == due, "\(label): a status wait for \(presentation)")
                if let answered = deferred.completed {
                    #expect(text(answered.bodyBytes) == text(now.bodyBytes), "\(label): a status wait's answer")
                }
            }

            // Over, as when libmicrohttpd has sent them: their watches go.
            eventsPoll?.end()
            statusPoll?.deferred.end()

            // Events: a read with the session, and every stream.
            let since = before.revision
            let eventsRead = harness.send(.get, path + "/events", token: token, query: [(name: "after", value: String(since)), (name: "include", value: "session")])
            let newEvents = try after.events(after: since)
            let expectedRead = Self.eventsAnswer(newEvents, revision: after.revision, session: written)
            #expect(text(eventsRead.bodyBytes) == text(expectedRead), "\(label): events read")
            for index in taps.indices {
                // Without heartbeats: a beat comes from the wall clock, not the session, and under
                // ThreadSanitizer a run outlasted the 15 s heartbeat, so a stream held one.
                let sent = Array(text(taps[index].drain()).replacingOccurrences(of: ": keep-alive\n\n", with: "").utf8)
                var expected: [UInt8] = []
                if after.revision > taps[index].through {
                    expected = EventStreamFrame.messages(for: try after.events(after: taps[index].through))
                    if taps[index].includesSession { expected += EventStreamFrame.session(written, revision: after.revision) }
                }
                #expect(text(sent) == text(expected), "\(label): stream \(index) (after \(taps[index].through))")
                // Each message's data is an event as the events route writes it, or the session as GET answers it.
                let datas = text(sent).components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }
                let parser = JSONParser(maxDepth: .max, maxStringBytes: 1 << 24)
                let events = try after.events(after: taps[index].through)
                for (offset, data) in datas.enumerated() {
                    if offset < events.count {
                        var one = JSONWriter()
                        one.write(event: events[offset])
                        #expect(try parser.parse(Array(data.utf8)) == parser.parse(one.bytes), "\(label)")
                    } else {
                        #expect(String(data) == text(whole), "\(label): a stream's session is not GET's")
                    }
                }
                taps[index].through = after.revision
            }

            // Now and then: another stream, resuming; an export, and an import of it.
            if random.chance(3), taps.count < 5 {
                let from = max(after.eventsDroppedThrough, after.revision - random.int(0..<3))
                open(includingSession: random.chance(50), after: from)
            }
            if random.chance(4) {
                let export = harness.send(.get, path + "/export", token: token)
                #expect(export.status == .ok)
                let document = text(export.bodyBytes)
                let start = document.range(of: "\"root\":")!.upperBound
                let end = document.range(of: ",\"eventsDroppedThrough\":", options: .backwards)!.lowerBound
                #expect(document[start..<end] == tree(of: written), "\(label): export's root")
                let imported = harness.send(.post, "/v1/sessions/import", json: document)
                #expect(imported.status == .created, "\(label): import \(text(imported.bodyBytes))")
                if imported.status == .created {
                    let object = try imported.jsonObject()
                    let newID = try #require(object["id"] as? String)
                    let newToken = try #require(object["token"] as? String)
                    let copy = harness.send(.get, "/v1/sessions/\(newID)", token: newToken)
                    #expect(
                        text(copy.bodyBytes) == text(written).replacingOccurrences(of: rawID, with: newID),
                        "\(label): an imported copy reads differently")
                    let copyEvents = harness.send(.get, "/v1/sessions/\(newID)/events", token: newToken)
                    let ownEvents = harness.send(.get, path + "/events", token: token)
                    #expect(text(copyEvents.bodyBytes) == text(ownEvents.bodyBytes), "\(label): an imported copy's events")
                    _ = harness.send(.delete, "/v1/sessions/\(newID)", token: newToken)
                }
            }
        }
    }

    @Test("Long runs, seeds from the environment")
    func longRuns() throws {
        guard let seeds = ProcessInfo.processInfo.environment["LONG_SEEDS"] else { return }
        for seed in seeds.split(separator: ",").compactMap({ UInt64($0) }) {
            try Self.run(
                seed: seed, steps: 4000,
                limits: Limits(maxStackLength: Int(seed % 5) * 10 + 3, maxPresentationDepth: Int(seed % 8) + 1, maxBatchSteps: 6, eventsKept: [2, 16, 33, 128][Int(seed % 4)], repliesKept: Int(seed % 3) * 8 + 2))
        }
    }

    @Test("Answers, reads, streams and replays agree with the session written afresh", arguments: [1, 2, 3, 4] as [UInt64])
    func randomRequests(seed: UInt64) throws {
        try Self.run(
            seed: seed, steps: 800,
            limits: Limits(maxStackLength: 6, maxPresentationDepth: 3, maxBatchSteps: 4, eventsKept: [5, 20, 64][Int(seed % 3)]))
    }
}
