import APIChecks
import MicroHTTP
import SessionChecks
import Testing

/// The request fuzz target's inputs, replayed through its check on every `make test`.
@Suite("Fuzz inputs: requests")
struct RequestReplayTests {
    @Test("Every seed and every fixed crasher passes the request check", arguments: FuzzInputs.files(of: "requests"))
    func replay(_ name: String) throws {
        do {
            try RequestSequenceCheck.run(try FuzzInputs.bytes(name))
        } catch let violation as Violation {
            Issue.record("\(name): \(violation)")
        }
    }

    @Test("The seeds reach the routes: each answers, and together they succeed and fail")
    func seedsReachTheAPI() throws {
        let files = FuzzInputs.files(of: "requests").filter { $0.hasPrefix("Corpus/") }
        #expect(files.count >= 10)
        var statuses: Set<Int> = []
        for name in files {
            let report = try RequestSequenceCheck.run(try FuzzInputs.bytes(name))
            #expect(!report.statuses.isEmpty, "\(name) sent nothing")
            statuses.formUnion(report.statuses)
        }
        for expected in [200, 201, 204, 400, 401, 404, 405, 409, 415, 422, 429, 503] {
            #expect(statuses.contains(expected), "no seed is answered \(expected): \(statuses.sorted())")
        }
    }

    @Test("The reply check refuses what the API must never send")
    func replyCheckCanFail() {
        let refused: [HTTPResponse] = [
            HTTPResponse(status: .internalServerError, headers: ["Content-Type": "application/problem+json"], bytes: []),
            HTTPResponse(status: .badRequest, headers: ["Content-Type": "application/json"], bytes: Array(#"{"code":"x","status":400}"#.utf8)),
            HTTPResponse(status: .badRequest, headers: ["Content-Type": "application/problem+json"], bytes: Array(#"{"status":400}"#.utf8)),
            HTTPResponse(status: .notFound, headers: ["Content-Type": "application/problem+json"], bytes: Array(#"{"code":"x","status":400}"#.utf8)),
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], bytes: Array("{".utf8)),
            HTTPResponse(status: .ok, headers: ["Location": "/a\r\nSet-Cookie: x=1"]),
        ]
        for response in refused {
            #expect(throws: Violation.self, "\(response.status) \(response.headers.fields)") { try ReplyCheck.check(response) }
        }
        let problem = HTTPResponse(
            status: .notFound, headers: ["Content-Type": "application/problem+json"],
            bytes: Array(#"{"code":"not_found","status":404}"#.utf8))
        #expect(throws: Never.self) { try ReplyCheck.check(problem) }
    }
}
