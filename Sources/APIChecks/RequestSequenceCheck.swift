import Foundation
import JSON
import MicroHTTP
import Presentation
import PresentationAPI
public import SessionChecks
import Synchronization

/// The request fuzz target's check: a script of requests (`RequestScript`) sent to
/// `PresentationAPI.respond(to:)` over an in-memory store holding two sessions.
///
/// Requests come from a trusted proxy, so `X-Forwarded-For` names each one's client; a client
/// may create four sessions (`--create-rate-per-ip`), and the server holds six.
///
/// Besides each answer's shape (`ReplyCheck`), after every request:
/// - a session changes only for a request that carried its token (nobody reaches a session
///   that is not theirs), and no answer shows a session's token to a request without it;
/// - a read, an error or any answer but a success changes nothing;
/// - a change adds at most one revision, and the tree stays valid (`TreeCheck`);
/// - a change's answer, when it is the session, is the session as a fresh API writes it whole
///   (answers are edited from the last revision's bytes, `TreeLayout`; debug builds assert
///   that too, but the fuzzer runs optimised);
/// - at the end, deleting the sessions ends every request still waiting on one.
public enum RequestSequenceCheck {
    /// How a run went, for tests that want more than "no violation".
    public struct Report: Equatable, Sendable {
        /// The statuses answered now, in order; 0 for an answer promised for later.
        public var statuses: [Int] = []
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let limits = Limits(
        maxStackLength: 8, maxPresentationDepth: 4, maxBatchSteps: 8, eventsKept: 32, outcomesKept: 8,
        maxSessions: 6, repliesKept: 4)
    static let adminToken = String(repeating: "a", count: 43)
    static let proxy = ClientAddress("127.0.0.1")!
    static let proxies = TrustedProxies([AddressRange("127.0.0.1")!])

    /// Runs the requests `bytes` decode to; throws the first broken promise.
    @discardableResult
    public static func run(_ bytes: [UInt8]) throws(Violation) -> Report {
        let script = RequestScript(bytes)
        let numbers = Mutex(0)
        // Ids and tokens from a counter, so that a failing input replays exactly.
        let next = { @Sendable in numbers.withLock { number -> Int in number += 1; return number } }
        let store = InMemorySessionStore(
            limits: limits, clock: { start },
            makeID: { SessionID(rawValue: "FuzzSession" + String(format: "%010d", next()) + "A")! },
            makeToken: { SessionToken(rawValue: "token" + String(format: "%038d", next()))! })
        // No heartbeat within a run: an event stream opened here is never ended (nothing plays
        // libmicrohttpd's part), so it keeps its API's heartbeat alive, and beating every few
        // milliseconds for each of them slowed a long fuzzing run down more and more.
        let configuration = APIConfiguration(
            maxWaitSeconds: 1, heartbeatSeconds: 3600, maxJSONDepth: 16, creationKeysKept: 8,
            adminToken: SessionTokenDigest(hashing: adminToken), cors: CORSPolicy(allowedOrigins: ["https://app.example"]),
            creationsPerMinutePerAddress: 4)
        let api = PresentationAPI(store: store, configuration: configuration, now: { start })
        // Only ever reads, and a read of a revision it has not seen writes the session whole.
        let reference = PresentationAPI(store: store, configuration: configuration, now: { start })
        defer { reference.beginShutdown() }
        var sessions = [try! store.create(root: try! ScreenSpec(name: "home"), now: start)]
        sessions.append(try! store.create(root: try! ScreenSpec(name: "other"), now: start))
        var tokens = sessions.map(\.token.rawValue)
        // Whether a session's token has been written into what the server keeps: a request
        // that carried it in its body (as a screen's name, a param) and was answered 2xx may
        // have stored it, and a later answer may then show it back as that data. Carried in a
        // header (authorization) it is not kept, and an answer showing it still breaks the rule.
        var stored = tokens.map { _ in false }
        var report = Report()
        var waiting: [HTTPDeferredResponse] = []
        defer { api.beginShutdown() }
        for entry in script.entries {
            let placeholders = Placeholders(values: [
                (Array("{id}".utf8), Array(sessions[0].session.id.rawValue.utf8)),
                (Array("{token}".utf8), Array(tokens[0].utf8)),
                (Array("{other}".utf8), Array(sessions[1].session.id.rawValue.utf8)),
                (Array("{othertoken}".utf8), Array(tokens[1].utf8)),
                (Array("{admin}".utf8), Array(adminToken.utf8)),
            ])
            var request = placeholders.request(from: entry)
            // Every request comes through a trusted proxy, so X-Forwarded-For, as the script
            // writes it, says who the client is (for the creation rate).
            request.clientAddress = proxies.client(of: proxy) { request.headers.values("X-Forwarded-For") }
            let before = sessions.map { store.session($0.session.id) }
            let reply = api.respond(to: request)
            try ReplyCheck.check(reply)
            var status = 0
            var answer = ""
            switch reply {
            case .later(let deferred): waiting.append(deferred)
            case .now(let response):
                status = response.status.rawValue
                if let body = response.body.wholeBytes { answer = String(decoding: body, as: UTF8.self) }
            }
            report.statuses.append(status)
            for index in sessions.indices {
                let carried = contains(request, tokens[index])
                if !carried, !stored[index], answer.contains(tokens[index]) {
                    throw Violation("\(request.method) \(request.path) without session \(index)'s token got it back")
                }
                let after = store.session(sessions[index].session.id)
                try checkSession(index, before: before[index], after: after, status: status, carried: carried, request)
                // A new token, handed out by a rotation, is what `{token}` means from now on.
                if let after, let before = before[index], after.tokenDigest != before.tokenDigest {
                    guard let fresh = newToken(in: answer), after.tokenDigest.matches(fresh) else {
                        throw Violation("session \(index)'s token changed, and the answer does not give the new one")
                    }
                    tokens[index] = fresh
                    stored[index] = false
                } else if (200..<300).contains(status),
                    String(decoding: request.body, as: UTF8.self).contains(tokens[index])
                {
                    stored[index] = true
                }
                if let after, let before = before[index], after.revision == before.revision + 1 {
                    try checkAnswer(answer, of: after, token: tokens[index], against: reference, request)
                }
            }
        }
        // Every session, also those the script made: a session's watchers hold the store, which
        // holds the session, until the session goes (in the server, until its requests end).
        for session in store.sessions(after: nil, limit: 1000) { _ = try? store.delete(session.id) }
        if waiting.contains(where: \.isPending) {
            throw Violation("a request waiting on a session was still pending after the session was deleted")
        }
        return report
    }

    private static func checkSession(
        _ index: Int, before: Session?, after: Session?, status: Int, carried: Bool, _ request: HTTPRequest
    ) throws(Violation) {
        let what = "\(request.method) \(request.path) (\(status))"
        guard before != after else {
            if let after, let first = TreeCheck(after, limits: limits).violations.first {
                throw Violation("session \(index) after \(what): \(first)")
            }
            return
        }
        guard carried else { throw Violation("\(what) changed session \(index) without its token") }
        guard (200..<300).contains(status), ![HTTPMethod.get, .head, .options].contains(request.method) else {
            throw Violation("\(what) changed session \(index)")
        }
        guard let before, let after else { return }  // Created or deleted.
        guard after.revision == before.revision || after.revision == before.revision + 1 else {
            throw Violation("\(what) took session \(index) from revision \(before.revision) to \(after.revision)")
        }
        if let first = TreeCheck(after, limits: limits).violations.first {
            throw Violation("session \(index) after \(what): \(first)")
        }
    }

    /// A change's answer that is `session` (a whole one: not a summary, a problem or a
    /// recorded reply of another revision) must be what `reference` reads: the session written
    /// whole, plus the members only a change's answer has.
    private static func checkAnswer(
        _ answer: String, of session: Session, token: String, against reference: PresentationAPI, _ request: HTTPRequest
    ) throws(Violation) {
        let parser = JSONParser(maxDepth: 256, maxStringBytes: 1 << 20)
        guard let answered = try? parser.parse(answer), answered["root"] != nil,
            answered["id"]?.stringValue == session.id.rawValue, answered["revision"] == .number("\(session.revision)")
        else { return }
        let read = reference.respond(
            to: HTTPRequest(
                method: .get, path: "/v1/sessions/\(session.id.rawValue)",
                headers: HTTPHeaders(fields: [(name: "Authorization", value: "Bearer \(token)")])))
        guard case .now(let response) = read, let body = response.body.wholeBytes, let written = try? parser.parse(body)
        else { throw Violation("the reference read of session \(session.id.rawValue) failed") }
        let extras: Set<String> = ["presentation", "token", "ttl"]
        guard case .object(let members) = answered,
            JSONValue.object(members.filter { !extras.contains($0.key) }) == written
        else {
            throw Violation("\(request.method) \(request.path) answered \(answer), but the session written whole is \(String(decoding: body, as: UTF8.self))")
        }
    }

    /// True when the request carries `token` anywhere a client can put it.
    private static func contains(_ request: HTTPRequest, _ token: String) -> Bool {
        request.path.contains(token) || request.headers.contains { $0.name.contains(token) || $0.value.contains(token) }
            || request.query.contains { ($0.value ?? "").contains(token) || $0.name.contains(token) }
            || String(decoding: request.body, as: UTF8.self).contains(token)
    }

    private static func newToken(in answer: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
            let raw = object["token"] as? String
        else { return nil }
        return raw
    }
}
