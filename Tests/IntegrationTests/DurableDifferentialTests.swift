import Foundation
import SessionChecks
import Testing

/// Random requests over the real server with durable storage, restarted (cleanly and by a
/// kill) along the way: every answer, read, stream message and replay is compared byte for byte
/// with the others and with what the restarted server serves.
@Suite("Durable server: answers, reads, streams and restarts agree", .serialized)
struct DurableDifferentialTests {
    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The stacks of a session's JSON, root first, and the ids of its presentations.
    private static func ids(_ session: [String: Any]) -> (screens: [[String]], presentations: [String], alert: Bool) {
        var screens: [[String]] = []
        var presentations: [String] = []
        var alert = false
        var stack = session["root"] as? [String: Any]
        while let current = stack {
            screens.append(((current["path"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            stack = nil
            if let presentation = current["presentation"] as? [String: Any] {
                presentations.append(presentation["id"] as? String ?? "")
                stack = presentation["stack"] as? [String: Any]
                alert = presentation["alert"] is [String: Any]
            }
        }
        return (screens, presentations, alert)
    }

    private static func request(_ random: inout SplitMix64, _ session: [String: Any]) -> (String, String) {
        let (screens, presentations, alert) = ids(session)
        let q = { (text: String) in "\"\(text)\"" }
        let values = ["1.50", "-0", "2E3", "true", "null", q("a\\/b"), q("\\u00e9"), "[1,{\"x\":[]}]", "{\"k\":\"v\"}", q("")]
        let params = { (random: inout SplitMix64) -> String in
            random.chance(50) ? "{}" : "{\"a\":\(random.pick(values)),\"b\":\(random.pick(["1", "\"x\"", "{\"c\":1.0}"]))}"
        }
        let someScreen = { (random: inout SplitMix64) -> String in
            random.chance(80) ? random.pick(random.chance(60) ? screens[screens.count - 1] : random.pick(screens)) : "s\(random.int(1..<400))"
        }
        let somePresentation = { (random: inout SplitMix64) -> String in
            !presentations.isEmpty && random.chance(75) ? random.pick(presentations) : "p\(random.int(1..<400))"
        }
        let screen = { (random: inout SplitMix64) -> String in
            "\"screen\":\(q(random.pick(["inbox", "detail", "compose"]))),\"params\":\(params(&random))"
                + (random.chance(30) ? ",\"title\":\"T\"" : "")
        }
        if alert, random.chance(60) {
            let answer = random.pick(["{\"action\":\"ok\"}", "{\"action\":\"no\",\"fields\":{\"reason\":\"r\"}}", "{\"action\":\"x\"}", "3"])
            return ("dismiss", random.chance(70) ? "{\"result\":\(answer)}" : "{}")
        }
        switch random.int(0..<100) {
        case 0..<25: return ("push", "{\(screen(&random))}")
        case 25..<37: return ("pop", random.chance(50) ? "{}" : "{\"result\":\(random.pick(values))}")
        case 37..<40: return ("pop-to-root", "{}")
        case 40..<44: return ("pop-to", "{\"screen\":\(q(someScreen(&random)))}")
        case 44..<48: return ("replace", "{\(screen(&random))}")
        case 48..<58:
            return ("present", "{\(screen(&random)),\"style\":\(q(random.pick(["sheet", "modal", "popover", "fullScreen"])))"
                + (random.chance(20) ? ",\"navigation\":false" : "") + "}")
        case 58..<62:
            return ("present", #"{"style":"alert","alert":{"title":"Sure?","actions":[{"id":"ok","title":"OK"},{"id":"no","title":"No","role":"cancel"}],"fields":[{"id":"reason"}]}}"#)
        case 62..<75:
            var members: [String] = []
            if random.chance(40) { members.append("\"presentation\":\(q(somePresentation(&random)))") }
            if random.chance(50) { members.append("\"result\":\(random.pick(values))") }
            return ("dismiss", "{" + members.joined(separator: ",") + "}")
        case 75..<82:
            let named = random.chance(40) ? "\"presentation\":\(q(somePresentation(&random)))," : ""
            return ("emit", "{\(named)\"result\":\(random.pick(values))}")
        case 82..<85: return ("set-root", "{\(screen(&random))}")
        case 85..<92:
            let target = random.chance(50) ? ",\"screen\":\(q(someScreen(&random)))" : ""
            return ("set-state", "{\"state\":\(q(random.pick(["loading", "done"]))),\"params\":\(params(&random))\(target)}")
        default:
            let operations = (0..<random.int(1..<4)).map { _ in
                "{\"op\":\"push\",\(screen(&random))}"
            }
            let tail = random.chance(50) ? ",{\"op\":\"pop\",\"result\":\(random.pick(values))}" : ""
            return ("batch", "{\"operations\":[" + operations.joined(separator: ",") + tail + "]}")
        }
    }

    /// The session's summary: its members before `"root"`, then the presentation a present made.
    private static func summary(of whole: [UInt8], presented: String?) -> String {
        let text = text(whole)
        var summary = String(text[..<text.range(of: ",\"root\":")!.lowerBound])
        if let presented { summary += ",\"presentation\":\"\(presented)\"" }
        return summary + "}"
    }

    private struct Recorded {
        var route: String
        var body: String
        var whole: [UInt8]
        var presented: String?
        var revision: Int
    }

    static func run(seed: UInt64, steps: Int, kept: [String] = ["24", "24"]) throws {
        var random = SplitMix64(state: seed)
        let directory = DataDirectory()
        var (server, port) = try directory.startServer(["--events-kept", kept[0]])
        defer { _ = try? server.terminate() }
        var client = try HTTPConnection(port: port)
        let session = try client.createSession(root: ["screen": "inbox", "params": ["tab": 1]])
        func get() throws -> [UInt8] {
            let response = try client.get(session.route(), token: session.token)
            #expect(response.status == 200)
            return response.body
        }
        func openStream() throws -> EventStream {
            let stream = try EventStream(
                connection: try HTTPConnection(port: port), path: session.route("events") + "?include=session",
                headers: [("Authorization", "Bearer \(session.token)")])
            var opening = try stream.nextEvent()
            while opening.event != "session", opening.data.isEmpty { opening = try stream.nextEvent() }
            let now = try get()
            #expect(opening.event == "session" && opening.data == text(now), "seed \(seed): a stream's opening")
            return stream
        }
        var stream = try openStream()
        var recorded: [String: Recorded] = [:]
        var keys: [String] = []
        var whole = try get()

        for step in 1...steps {
            let current = try JSONSerialization.jsonObject(with: Data(whole)) as! [String: Any]
            let revision = current["revision"] as! Int
            var (route, body) = Self.request(&random, current)
            var headers: [(String, String)] = [("Content-Type", "application/json")]
            let minimal = random.chance(30)
            if minimal { headers.append(("Prefer", "return=minimal")) }
            var replay: Recorded?
            var key: String?
            if random.chance(10), let old = keys.suffix(32).randomElement(using: &random) {
                key = old
                replay = recorded[old]
                route = replay!.route
                body = replay!.body
            } else if random.chance(25) {
                key = "k\(step)"
            }
            if let key { headers.append(("Idempotency-Key", key)) }
            let label = "seed \(seed) step \(step): \(route) \(body) \(headers.dropFirst())"
            let response = try client.request("POST", session.route(route), token: session.token, headers: headers, body: Array(body.utf8))
            let after = try get()
            if let replay {
                #expect(response.status == 200 && response.header("Idempotent-Replayed") == "true", "\(label)")
                let expected = minimal ? summary(of: replay.whole, presented: replay.presented) : text(replay.whole)
                #expect(response.text == expected, "\(label): a replay is not the first answer")
                #expect(response.header("ETag") == "\"\(replay.revision)\"", "\(label)")
                #expect(after == whole, "\(label): a replay changed the session")
            } else if response.status == 200 {
                let presented = (try? response.json())?["presentation"] as? String
                var expectedWhole = after
                if let presented {
                    expectedWhole.removeLast()
                    expectedWhole += Array(",\"presentation\":\"\(presented)\"}".utf8)
                }
                #expect(response.header("ETag") == "\"\(revision + 1)\"", "\(label)")
                let expected = minimal ? summary(of: after, presented: presented) : text(expectedWhole)
                #expect(response.text == expected, "\(label): the answer differs from the session read after it")
                if let key {
                    recorded[key] = Recorded(route: route, body: body, whole: expectedWhole, presented: presented, revision: revision + 1)
                    keys.removeAll { $0 == key }
                    keys.append(key)
                }
                // The stream: this revision's events, as the events route has them, then the session as GET has it.
                let events = try client.get(session.route("events") + "?after=\(revision)", token: session.token).json()["events"] as! [[String: Any]]
                for event in events {
                    let message = try stream.nextEvent()
                    #expect(message.event == nil, "\(label)")
                    #expect(NSDictionary(dictionary: try message.json()) == NSDictionary(dictionary: event), "\(label): a streamed event")
                }
                let message = try stream.nextEvent()
                #expect(message.event == "session" && message.id == String(revision + 1), "\(label)")
                #expect(message.data == text(after), "\(label): the streamed session is not GET's")
            } else {
                #expect(after == whole, "\(label): a refused change changed the session (\(response.status) \(response.text))")
            }
            whole = after

            if step % 60 == 0 {
                // Restarted, cleanly or by a kill: everything reads back byte for byte.
                let events = try client.get(session.route("events"), token: session.token)
                let export = try client.get(session.route("export"), token: session.token)
                if (step / 60) % 2 == 0 { _ = try server.terminate() } else { server.crash() }
                (server, port) = try directory.startServer(["--events-kept", kept[(step / 60) % kept.count]])
                client = try HTTPConnection(port: port)
                let read = try get()
                #expect(text(read) == text(whole), "seed \(seed) step \(step): the session reads differently after a restart")
                // A lower `--events-kept` trims the history it reads back; else it is as it was.
                if Int(kept[(step / 60) % kept.count])! >= Int(kept[(step / 60 - 1) % kept.count])! {
                    let eventsAgain = try client.get(session.route("events"), token: session.token)
                    #expect(eventsAgain.text == events.text, "seed \(seed) step \(step): events after a restart")
                    let exportAgain = try client.get(session.route("export"), token: session.token)
                    #expect(exportAgain.text == export.text, "seed \(seed) step \(step): export after a restart")
                }
                for key in keys.suffix(3) {
                    let first = recorded[key]!
                    let again = try client.request(
                        "POST", session.route(first.route), token: session.token,
                        headers: [("Content-Type", "application/json"), ("Idempotency-Key", key)], body: Array(first.body.utf8))
                    #expect(again.text == text(first.whole), "seed \(seed) step \(step): a replay after a restart")
                    #expect(again.header("ETag") == "\"\(first.revision)\"", "seed \(seed) step \(step)")
                }
                stream = try openStream()
            }
        }
    }

    @Test("Long runs, seeds from the environment")
    func longRuns() throws {
        guard let seeds = ProcessInfo.processInfo.environment["LONG_SEEDS"] else { return }
        for seed in seeds.split(separator: ",").compactMap({ UInt64($0) }) {
            try Self.run(seed: seed, steps: 600, kept: [["1", "2"], ["3", "1"], ["24", "2"], ["2", "50"]][Int(seed % 4)])
        }
    }

    @Test("Random requests with restarts", arguments: [1, 2] as [UInt64])
    func randomRequests(seed: UInt64) throws {
        try Self.run(seed: seed, steps: 240)
    }
}
