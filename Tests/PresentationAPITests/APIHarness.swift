import Foundation
import MicroHTTP
import Presentation
import PresentationAPI
import Testing

/// Calls the API handler directly, with no sockets, and reads its answers as JSON.
struct APIHarness {
    let api: PresentationAPI
    let store: InMemorySessionStore

    /// `now`: the API's and the store's clock; one fixed time unless a test moves it, so that
    /// no session expires once the real date passes it.
    init(
        limits: Limits = .default, configuration: APIConfiguration = APIConfiguration(),
        now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
    ) {
        var counter = 0
        let ids = (0..<1000).map { _ -> SessionID in
            counter += 1
            return SessionID(rawValue: String(repeating: "a", count: 19) + String(format: "%02d", counter % 100) + "A")!
        }
        let next = Counter()
        store = InMemorySessionStore(
            limits: limits,
            clock: now,
            makeID: { ids[next.increment() % ids.count] },
            makeToken: SessionToken.random)
        api = PresentationAPI(store: store, configuration: configuration, now: now)
    }

    func send(
        _ method: HTTPMethod, _ path: String, json: String? = nil, token: String? = nil,
        headers: [(String, String)] = [], query: [(name: String, value: String?)] = []
    ) -> HTTPResponse {
        var fields = HTTPHeaders()
        if json != nil { fields.add("Content-Type", "application/json") }
        if let token { fields.add("Authorization", "Bearer \(token)") }
        for (name, value) in headers { fields.add(name, value) }
        let request = HTTPRequest(
            method: method, path: path, query: query, headers: fields, body: Array((json ?? "").utf8))
        switch api.respond(to: request) {
        case .now(let response): return response
        case .later:
            Issue.record("expected an immediate answer for \(method) \(path)")
            return HTTPResponse(status: .internalServerError)
        }
    }

    /// Creates a session with an inbox root; returns its id and token.
    func createSession() throws -> (id: String, token: String) {
        let response = send(.post, "/v1/sessions", json: #"{"root": {"screen": "inbox", "title": "Inbox"}}"#)
        #expect(response.status == .created)
        let body = try response.jsonObject()
        return (try #require(body["id"] as? String), try #require(body["token"] as? String))
    }
}

/// A counter shared by the id maker; the maker must be Sendable.
final class Counter: Sendable {
    private let value = AtomicCounter()
    func increment() -> Int { value.next() }
}

import Synchronization

/// An atomic Int that hands out 0, 1, 2, ...
final class AtomicCounter: Sendable {
    private let atomic = Atomic<Int>(0)
    func next() -> Int { atomic.add(1, ordering: .relaxed).oldValue }
}

extension HTTPResponse {
    var bodyBytes: [UInt8] {
        body.wholeBytes ?? []
    }

    func jsonObject() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bodyBytes)) as? [String: Any])
    }

    /// The problem's `code`, checking it is served as problem+json.
    func problemCode() throws -> String {
        #expect(headers["Content-Type"] == "application/problem+json")
        let body = try jsonObject()
        #expect(body["status"] as? Int == status.rawValue)
        #expect(body["title"] as? String == status.reasonPhrase)
        #expect((body["type"] as? String)?.hasSuffix(body["code"] as? String ?? "-") == true)
        return try #require(body["code"] as? String)
    }
}
