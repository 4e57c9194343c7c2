import Foundation
import Presentation
import Testing

/// The limits' errors: bodies, sessions, stacks, presentations and header blocks past what
/// the server takes, and a server that is stopping. Each names its limit where it has one.
@Suite("Limits")
struct LimitTests {
    @Test("A body past the limit is 413 body_too_large with the limit, announced or chunked")
    func bodyTooLarge() throws {
        try withServer(maxBodyBytes: 512) { server in
            let session = try server.connect().createSession()
            let before = try server.connect().snapshot(of: session)
            let big = #"{"screen":"a","params":{"pad":""# + String(repeating: "x", count: 1000) + #""}}"#
            let announced = try server.connect().post(session.route("push"), text: big, token: session.token)
            #expect(announced.expectProblem(413, "body_too_large").int("limit") == 512)

            let chunkedClient = try server.connect()
            var request = "POST \(session.route("push")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            request += "Authorization: Bearer \(session.token)\r\nContent-Type: application/json\r\n"
            request += "Transfer-Encoding: chunked\r\n\r\n"
            var bytes = Array(request.utf8)
            for chunk in stride(from: 0, to: big.utf8.count, by: 200) {
                let piece = Array(big.utf8)[chunk..<min(chunk + 200, big.utf8.count)]
                bytes += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
            }
            bytes += Array("0\r\n\r\n".utf8)
            try chunkedClient.writeRaw(bytes)
            let chunked = try chunkedClient.readResponse(to: "POST")
            #expect(chunked.expectProblem(413, "body_too_large").int("limit") == 512)
            #expect(try server.connect().snapshot(of: session) == before)
        }
    }

    /// The announced length is read before any of the body: one too large is refused at once,
    /// however many digits it has, and the body never waited for, when the client waits for
    /// `100 Continue` before sending it, or announces more than the server reads of a refused
    /// body (RefusedBodyDrain: 16 MiB here). Else the body is read first (RefusedBodyTests).
    @Test(
        "An announced length past the limit is 413 before the body is sent",
        arguments: [("513", true), ("1000000000000000000", true), ("1000000000000000000", false), ("16777217", false)])
    func announcedTooLarge(length: String, expectsContinue: Bool) throws {
        try withServer(maxBodyBytes: 512) { server in
            let session = try server.connect().createSession()
            let client = try server.connect()
            var request = "POST \(session.route("push")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            request += "Authorization: Bearer \(session.token)\r\nContent-Type: application/json\r\n"
            if expectsContinue { request += "Expect: 100-continue\r\n" }
            request += "Content-Length: \(length)\r\n\r\n"
            try client.writeRaw(Array(request.utf8))
            #expect(try client.readResponse(to: "POST").expectProblem(413, "body_too_large").int("limit") == 512)
        }
    }

    @Test("A body of exactly the limit is accepted")
    func bodyAtLimit() throws {
        try withServer(maxBodyBytes: 512) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let frame = #"{"screen":"a","params":{"pad":""}}"#
            let body =
                #"{"screen":"a","params":{"pad":""# + String(repeating: "x", count: 512 - frame.utf8.count) + #""}}"#
            #expect(body.utf8.count == 512)
            try client.post(session.route("push"), text: body, token: session.token).expectSession(revision: 2)
        }
    }

    @Test("Past the session limit creation is 503 too_many_sessions with Retry-After; deleting frees a slot")
    func tooManySessions() throws {
        try withServer(limits: Limits(maxSessions: 2)) { server in
            let client = try server.connect()
            let first = try client.createSession()
            _ = try client.createSession()
            let refused = try client.post("/v1/sessions", json: ["root": ["screen": "third"]])
            #expect(refused.expectProblem(503, "too_many_sessions").int("limit") == 2)
            let retryAfter = try #require(refused.header("Retry-After"))
            #expect((Int(retryAfter) ?? 0) > 0, "Retry-After: \(retryAfter)")
            #expect(try client.delete(first.route(), token: first.token).status == 204)
            #expect(try client.createSession(root: ["screen": "third"]).json.rootPathNames == ["third"])
        }
    }

    @Test("A push past the stack limit is 422 stack_too_long with the limit")
    func stackTooLong() throws {
        try withServer(limits: Limits(maxStackLength: 3)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "b"]).expectSession()
            try client.post("push", to: session, json: ["screen": "c"]).expectSession()
            let before = try client.snapshot(of: session)
            let problem = try client.post("push", to: session, json: ["screen": "d"]).expectProblem(
                422, "stack_too_long")
            #expect(problem.int("limit") == 3)
            #expect(try client.snapshot(of: session) == before)
            // A presented stack starts a new count.
            try client.post("present", to: session, json: ["screen": "e", "style": "sheet"]).expectSession()
            try client.post("push", to: session, json: ["screen": "f"]).expectSession()
        }
    }

    @Test("A change past the session's bytes is 422 session_too_large and changes nothing; shrinking still works")
    func sessionTooLarge() throws {
        try withServer(limits: Limits(maxSessionBytes: 1_000)) { server in
            let client = try server.connect()
            // The root "home" weighs 6 bytes (its name and "{}"); {"pad":""} is 10 of params.
            let session = try client.createSession(root: ["screen": "home"])
            func screen(_ name: String, padding: Int) -> [String: Any] {
                ["screen": name, "params": ["pad": String(repeating: "x", count: padding)]]
            }
            try client.post("push", to: session, json: screen("a", padding: 600)).expectSession(revision: 2)
            let before = try client.snapshot(of: session)
            let push = try client.post("push", to: session, json: screen("b", padding: 373))
            #expect(push.expectProblem(422, "session_too_large").int("limit") == 1_000)
            let sheet = try client.post("present", to: session, json: screen("b", padding: 373).merging(["style": "sheet"]) { $1 })
            sheet.expectProblem(422, "session_too_large")
            let result = try client.post("pop", to: session, json: ["result": String(repeating: "r", count: 1_000)])
            result.expectProblem(422, "session_too_large")
            // The weight belongs to the whole batch, one operation or several: no `operation`
            // names one of them (a batch of one named operation 0, a batch of two none).
            for operations in [[screen("b", padding: 373)], [["op": "pop"], screen("b", padding: 1_000)]] {
                let batch = try client.post(
                    "batch", to: session,
                    json: ["operations": operations.map { $0.merging(["op": $0["op"] ?? "push"]) { old, _ in old } }])
                let problem = batch.expectProblem(422, "session_too_large")
                #expect(problem["operation"] == nil, "\(operations.count) operations: \(problem)")
                #expect(problem.string("detail")?.hasPrefix("operation") == false)
            }
            #expect(try client.snapshot(of: session) == before)
            // 6 + 611 + 383 is the limit exactly.
            try client.post("push", to: session, json: screen("b", padding: 372)).expectSession(revision: 3)
            try client.post("pop", to: session, json: [:]).expectSession(revision: 4)

            // A new session, or an import, heavier than the limit is refused.
            let heavy = try client.post("/v1/sessions", json: ["root": screen("home", padding: 1_000)])
            heavy.expectProblem(422, "session_too_large")
            try withServer { roomy in
                let other = try roomy.connect()
                let large = try other.createSession()
                try other.post("push", to: large, json: screen("a", padding: 1_000)).expectSession(revision: 2)
                let document = try other.get(large.route("export"), token: large.token)
                #expect(document.status == 200)
                let imported = try client.request(
                    "POST", "/v1/sessions/import", headers: [("Content-Type", "application/json")], body: document.body)
                imported.expectProblem(422, "session_too_large")
            }
        }
    }

    @Test("A presentation past the depth limit, alerts included, is 422 presentations_too_deep")
    func presentationsTooDeep() throws {
        try withServer(limits: Limits(maxPresentationDepth: 2)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("present", to: session, json: ["screen": "a", "style": "sheet"]).expectSession()
            try client.post("present", to: session, json: ["screen": "b", "style": "modal"]).expectSession()
            let before = try client.snapshot(of: session)
            let screen = try client.post("present", to: session, json: ["screen": "c", "style": "popover"])
            #expect(screen.expectProblem(422, "presentations_too_deep").int("limit") == 2)
            let alert = try client.post(session.route("present"), text: ErrorTests.alert, token: session.token)
            #expect(alert.expectProblem(422, "presentations_too_deep").int("limit") == 2)
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("Headers up to 12 KB are read; a header block past the connection's 16 KB is refused with 431")
    func headerBlockLimit() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let fits = try client.get(
                session.route(), token: session.token, headers: [("X-Pad", String(repeating: "p", count: 12_000))])
            #expect(fits.status == 200)
            // libmicrohttpd answers this itself, before any handler runs, and closes the connection.
            let tooLarge = try server.connect()
            let refused = try tooLarge.request(
                "POST", session.route("push"), token: session.token,
                headers: [("Content-Type", "application/json"), ("X-Pad", String(repeating: "p", count: 20_000))],
                body: Array(#"{"screen":"never"}"#.utf8))
            #expect(refused.status == 431)
            #expect(try server.connect().snapshot(of: session) == before)
        }
    }

    @Test("Stopping the server answers a parked long poll with 503 shutting_down")
    func shuttingDown() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        let session = try client.createSession()
        try client.write(
            "GET", session.route("events?after=1&wait=30"), headers: [("Authorization", "Bearer \(session.token)")])
        #expect(!client.hasData(within: .milliseconds(200)))
        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(3))
        let response = try client.readResponse(timeout: .seconds(2))
        response.expectProblem(503, "shutting_down")
    }
}
