import Foundation
import MicroHTTP
import Presentation
import PresentationAPI
import Testing

/// RFC 9110 13.1.1: an origin server MUST evaluate If-Match before performing the method, GET
/// included, and MUST NOT perform it when the condition is false: 412. The page's files have
/// strong tags, so a client (a download resumed by hand, a tool checking it has the file it
/// thinks) sends one and expects a file that has changed since to be refused, not served.
@Suite("Static files and If-Match")
struct StaticFileIfMatchTests {
    @Test("If-Match naming none of a file's tags is 412 with its ETag, for GET and HEAD; its tag or * serves it")
    func ifMatch() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let api = PresentationAPI(store: InMemorySessionStore(), staticFiles: try StaticFiles(root: directory.root.path))
        func send(_ method: HTTPMethod, _ headers: HTTPHeaders = HTTPHeaders()) throws -> HTTPResponse {
            guard case .now(let response) = api.respond(to: HTTPRequest(method: method, path: "/styles.css", headers: headers))
            else { throw CancellationError() }
            return response
        }
        let tag = try #require(try send(.get).headers["ETag"])
        for condition in [tag, "\"other\", \(tag)", "*"] {
            #expect(try send(.get, ["If-Match": condition]).status == .ok, "If-Match: \(condition)")
        }
        // A weak tag never matches in If-Match, which compares strongly.
        for condition in ["\"other\"", "W/\(tag)"] {
            for method in [HTTPMethod.get, .head] {
                let refused = try send(method, ["If-Match": condition])
                #expect(refused.status == .preconditionFailed, "\(method) If-Match: \(condition)")
                #expect(refused.headers["Content-Type"] == "application/problem+json")
                #expect(refused.headers["ETag"] == tag)
                let problem = try #require(
                    try JSONSerialization.jsonObject(with: Data(refused.body.wholeBytes ?? [])) as? [String: Any])
                #expect(problem["status"] as? Int == 412)
                #expect(problem["code"] as? String == "precondition_failed")
            }
        }
        // Judged before If-None-Match (RFC 9110 13.2.2), which would have made it a 304.
        #expect(try send(.get, ["If-Match": "\"other\"", "If-None-Match": tag]).status == .preconditionFailed)
    }
}
