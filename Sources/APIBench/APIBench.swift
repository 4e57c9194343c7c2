import Foundation
import MicroHTTP
import Presentation
import PresentationAPI

/// The API over an in-memory store, its sessions, and the workloads timed against it.
struct APIBench {
    let requests: Int
    let rounds: Int
    private let api = PresentationAPI(store: InMemorySessionStore(limits: Limits(maxSessions: 1_000_000)))
    private var sessions: [(path: String, token: String)] = []
    private static let pushBody = #"{"screen":"detail","params":{"itemId":"abc123","title":"Bench item","source":"api-bench"}}"#

    init(requests: Int, rounds: Int) {
        self.requests = requests
        self.rounds = rounds
        let root = #"{"root":{"screen":"inbox","title":"Inbox","params":{"folder":"all"}}}"#
        let tree =
            #"{"operations":[{"op":"push","screen":"message","params":{"id":42}},"#
            + #"{"op":"push","screen":"detail","title":"Detail"},{"op":"present","style":"sheet","screen":"compose"}]}"#
        for _ in 0..<1_000 {
            let created = Self.body(of: send(.post, "/v1/sessions", body: root), .created, "create")
            let fields = try? JSONSerialization.jsonObject(with: Data(created)) as? [String: Any]
            guard let id = fields?["id"] as? String, let token = fields?["token"] as? String else {
                fatalError("a created session without id or token")
            }
            let path = "/v1/sessions/\(id)"
            Self.expect(send(.post, path + "/batch", body: tree, token: token), .ok, "batch")
            sessions.append((path, token))
        }
    }

    static let workloads = ["tree", "pushpop", "pushpop-minimal"]

    /// The nanoseconds per request, in its fastest round, of each workload in `only`, in `workloads` order.
    func run(only: Set<String>) -> [(String, Double)] {
        Self.workloads.filter(only.contains).map { workload in
            switch workload {
            case "tree":
                (workload, measure { index in
                    let session = sessions[index % sessions.count]
                    Self.expect(send(.get, session.path, token: session.token), .ok, "get")
                })
            case "pushpop": (workload, measure(pushPop(prefer: nil)))
            default: (workload, measure(pushPop(prefer: "return=minimal")))
            }
        }
    }

    /// Push on even passes over the sessions, pop on odd ones, so that every stack stays bounded.
    private func pushPop(prefer: String?) -> (Int) -> Void {
        { index in
            let session = sessions[index % sessions.count]
            let pushing = (index / sessions.count) % 2 == 0
            let response =
                pushing
                ? send(.post, session.path + "/push", body: Self.pushBody, token: session.token, prefer: prefer)
                : send(.post, session.path + "/pop", body: "", token: session.token, prefer: prefer)
            Self.expect(response, .ok, pushing ? "push" : "pop")
        }
    }

    private func measure(_ request: (Int) -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            let started = ContinuousClock.now
            for index in 0..<requests { request(index) }
            let elapsed = ContinuousClock.now - started
            let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            best = min(best, nanoseconds / Double(requests))
        }
        return best
    }

    /// One request through the API with the headers wrk sends, built as the HTTP layer builds it.
    private func send(_ method: HTTPMethod, _ path: String, body: String? = nil, token: String? = nil, prefer: String? = nil)
        -> HTTPResponse
    {
        var headers = HTTPHeaders()
        headers.add("Host", "127.0.0.1:8080")
        if let body {
            headers.add("Content-Length", String(body.utf8.count))
            headers.add("Content-Type", "application/json")
        }
        if let token { headers.add("Authorization", "Bearer \(token)") }
        if let prefer { headers.add("Prefer", prefer) }
        let request = HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8))
        guard case .now(let response) = api.respond(to: request) else { fatalError("\(method) \(path) was not answered at once") }
        return response
    }

    /// The body of an answer that must have `status`; anything else stops the run.
    private static func body(of response: HTTPResponse, _ status: HTTPStatus, _ what: String) -> [UInt8] {
        expect(response, status, what)
        return response.body.wholeBytes ?? []
    }

    /// Stops the run unless the answer has `status` and a whole body, without copying the body
    /// out: the server sends it as it is.
    private static func expect(_ response: HTTPResponse, _ status: HTTPStatus, _ what: String) {
        let whole = if case .stream = response.body { false } else { true }
        guard response.status == status, whole else {
            fatalError("\(what): status \(response.status.rawValue), expected \(status.rawValue)")
        }
    }
}
