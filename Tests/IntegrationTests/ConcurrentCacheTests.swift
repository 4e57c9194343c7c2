import Foundation
import Synchronization
import Testing

/// Many clients change and read one session at once over the real server: every body that
/// carries the session at a revision, whichever way it was made (a change's answer edited from
/// the last revision's bytes, a cached read, a prepared response sent by libmicrohttpd, an event
/// stream's session message), must be the same bytes for that revision.
@Suite("One revision, one body, under concurrent changes and reads")
struct ConcurrentCacheTests {
    @Test("Writers, readers and a stream agree on every revision's bytes", arguments: [false, true])
    func concurrent(durable: Bool) throws {
        let directory = DataDirectory()
        var process: ServerProcess?
        let server: TestServer?
        let port: UInt16
        if durable {
            let (started, startedPort) = try directory.startServer()
            process = started
            server = nil
            port = startedPort
        } else {
            server = try TestServer()
            port = server!.port
        }
        defer {
            server?.stop()
            _ = try? process?.terminate()
        }
        let session = try HTTPConnection(port: port).createSession(root: ["screen": "inbox", "params": ["tab": 1]])
        let stream = try EventStream(
            connection: try HTTPConnection(port: port), path: session.route("events") + "?include=session",
            headers: [("Authorization", "Bearer \(session.token)")])
        let bodies = Mutex<[Int: Set<String>]>([:])
        let writes = 300
        let record = { @Sendable (revision: Int, body: String, from: String) in
            bodies.withLock { _ = $0[revision, default: []].insert(body) }
        }
        let results = Threads.run(5) { thread throws -> Int in
            let client = try HTTPConnection(port: port)
            var random = UInt64(thread + 1)
            var done = 0
            for step in 0..<writes {
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let pick = Int(random >> 33) % 100
                if thread >= 3 {
                    let response = try client.get(session.route(), token: session.token)
                    guard response.status == 200, let tag = response.header("ETag") else { continue }
                    record(Int(tag.dropFirst().dropLast())!, response.text, "get")
                    continue
                }
                let (route, body): (String, String) =
                    switch pick {
                    case 0..<35: ("push", "{\"screen\":\"s\(thread)-\(step)\",\"params\":{\"n\":\(step)}}")
                    case 35..<60: ("pop", pick % 2 == 0 ? "{\"result\":\(step)}" : "{}")
                    case 60..<75: ("present", "{\"screen\":\"sheet\",\"style\":\"sheet\"}")
                    case 75..<90: ("dismiss", pick % 2 == 0 ? "{\"result\":\"r\(step)\"}" : "{}")
                    default: ("set-state", "{\"state\":\"loading\"}")
                    }
                let response = try client.request(
                    "POST", session.route(route), token: session.token, headers: [("Content-Type", "application/json")],
                    body: Array(body.utf8))
                guard response.status == 200, let tag = response.header("ETag") else { continue }
                done += 1
                var text = response.text
                if route == "present", let range = text.range(of: ",\"presentation\":\"p", options: .backwards) {
                    text = String(text[..<range.lowerBound]) + "}"
                }
                record(Int(tag.dropFirst().dropLast())!, text, route)
            }
            return done
        }
        var changes = 0
        for result in results { changes += try result.get() }
        // The stream's session messages, one after each revision's events (some revisions may
        // be reported together, or skipped by a reset: each message is the session at its id).
        var seen = 0
        while seen < 1 + changes {
            let message = try stream.nextEvent()
            guard message.event == "session", let id = message.id.flatMap(Int.init) else { continue }
            record(id, message.data, "stream")
            if id >= 1 + changes { break }
            seen = id
        }
        let final = try HTTPConnection(port: port).get(session.route(), token: session.token)
        record(Int(final.header("ETag")!.dropFirst().dropLast())!, final.text, "final")
        for (revision, variants) in bodies.withLock({ $0 }) {
            #expect(variants.count == 1, "revision \(revision) was sent as \(variants.count) different bodies: \(variants.sorted())")
            for variant in variants {
                let object = try JSONSerialization.jsonObject(with: Data(variant.utf8)) as? [String: Any]
                #expect(object?["revision"] as? Int == revision, "revision \(revision): a body of another revision")
            }
        }
    }
}
