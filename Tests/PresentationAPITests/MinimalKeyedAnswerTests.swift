import Foundation
import MicroHTTP
import Presentation
@testable import PresentationAPI
import Testing

/// `Prefer: return=minimal` with an `Idempotency-Key`: the answer is cut from the recorded
/// whole session, and must be the summary an unkeyed change gets, however deep the session's
/// values nest within what `--max-params-depth` allows.
@Suite("A keyed change's minimal answer")
struct MinimalKeyedAnswerTests {
    @Test("A session holding a value as deep as bodies may send still gets the summary, first time and replayed")
    func deepResult() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let store = InMemorySessionStore(limits: Limits(), clock: { now })
        let api = PresentationAPI(store: store, configuration: APIConfiguration(maxJSONDepth: 300), now: { now })
        func send(_ method: HTTPMethod, _ path: String, _ body: String?, _ headers: [(String, String)] = []) -> HTTPResponse {
            var fields = HTTPHeaders()
            if body != nil { fields.add("Content-Type", "application/json") }
            for (name, value) in headers { fields.add(name, value) }
            guard case .now(let response) = api.respond(
                to: HTTPRequest(method: method, path: path, query: [], headers: fields, body: Array((body ?? "").utf8)))
            else { return HTTPResponse(status: .internalServerError) }
            return response
        }
        let created = try send(.post, "/v1/sessions", #"{"root": {"screen": "inbox"}}"#).jsonObject()
        let id = try #require(created["id"] as? String)
        let auth = ("Authorization", "Bearer \(try #require(created["token"] as? String))")
        // One result nested as deep as a body may send stays on the screen it went to.
        let deep = String(repeating: "[", count: 280) + String(repeating: "]", count: 280)
        #expect(send(.post, "/v1/sessions/\(id)/push", #"{"screen": "detail"}"#, [auth]).status == .ok)
        #expect(send(.post, "/v1/sessions/\(id)/pop", #"{"result": \#(deep)}"#, [auth]).status == .ok)
        let unkeyed = send(.post, "/v1/sessions/\(id)/push", #"{"screen": "detail"}"#, [auth, ("Prefer", "return=minimal")])
        #expect(unkeyed.headers["Preference-Applied"] == "return=minimal")
        // Every keyed change of the session after it, first time and replayed, is answered as one unkeyed.
        for attempt in ["first", "replayed"] {
            let keyed = send(
                .post, "/v1/sessions/\(id)/pop", "{}", [auth, ("Prefer", "return=minimal"), ("Idempotency-Key", "k")])
            #expect(keyed.status == .ok)
            let text = String(decoding: keyed.bodyBytes, as: UTF8.self)
            #expect(keyed.headers["Preference-Applied"] == "return=minimal", "\(attempt)")
            #expect(!text.contains("\"root\""), "\(attempt): \(text.prefix(200))…")
        }
    }
}
