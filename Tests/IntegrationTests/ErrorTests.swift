import Foundation
import Presentation
import Testing

/// Every error of the contract's table that a client can provoke: the status, the problem
/// document, and a session left exactly as it was.
@Suite("Errors")
struct ErrorTests {
    static let alert = #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK"}],"fields":[{"id":"name"}]}}"#
    static let deep = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)

    static let bodyCases: [ErrorCase] = [
        ErrorCase("truncated JSON", route: "push", body: #"{"screen":"#, status: 400, code: "malformed_json"),
        ErrorCase("form data labelled JSON", route: "push", body: "screen=inbox", status: 400, code: "malformed_json"),
        ErrorCase("trailing garbage", route: "push", body: #"{"screen":"a"} x"#, status: 400, code: "malformed_json"),
        ErrorCase(
            "invalid UTF-8", route: "push", bytes: Array(#"{"screen":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            status: 400, code: "malformed_json"),
        ErrorCase(
            "duplicate keys", route: "push", body: #"{"screen":"a","screen":"b"}"#, status: 400, code: "malformed_json"),
        ErrorCase(
            "nesting past 32 levels", route: "push", body: #"{"screen":"a","params":"# + deep + "}", status: 400,
            code: "malformed_json"),
        ErrorCase(
            "a number out of range", route: "push", body: #"{"screen":"a","params":{"n":1e400}}"#, status: 400,
            code: "malformed_json"),
        ErrorCase("an empty body where one is needed", route: "push", body: "", status: 400, code: "malformed_json"),
        ErrorCase("a body that is not an object", route: "push", body: #"["a"]"#, status: 422, code: "invalid_field"),
        ErrorCase(
            "a screen name that is a number", route: "push", body: #"{"screen":5}"#, status: 422, code: "invalid_field",
            pointer: "/screen"),
        ErrorCase(
            "params that are an array", route: "push", body: #"{"screen":"a","params":[1]}"#, status: 422,
            code: "invalid_field", pointer: "/params"),
        ErrorCase(
            "a title that is a boolean", route: "replace", body: #"{"screen":"a","title":false}"#, status: 422,
            code: "invalid_field", pointer: "/title"),
        ErrorCase(
            "navigation that is a string", route: "present",
            body: #"{"screen":"a","style":"sheet","navigation":"yes"}"#,
            status: 422, code: "invalid_field", pointer: "/navigation"),
        ErrorCase(
            "a from that is a number", route: "push", body: #"{"screen":"a","from":2}"#, status: 422,
            code: "invalid_field",
            pointer: "/from"),
        ErrorCase(
            "a pop-to screen that is a number", route: "pop-to", body: #"{"screen":3}"#, status: 422,
            code: "invalid_field",
            pointer: "/screen"),
        ErrorCase(
            "an unknown style", route: "present", body: #"{"screen":"a","style":"drawer"}"#, status: 422,
            code: "invalid_field", pointer: "/style"),
        ErrorCase(
            "an unknown alert action role", route: "present",
            body: #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK","role":"maybe"}]}}"#, status: 422,
            code: "invalid_field", pointer: "/alert/actions/0/role"),
        ErrorCase(
            "a missing screen name", route: "push", body: #"{"params":{}}"#, status: 422, code: "missing_field",
            pointer: "/screen"),
        ErrorCase(
            "a missing set-root screen", route: "set-root", body: "{}", status: 422, code: "missing_field",
            pointer: "/screen"),
        ErrorCase(
            "a missing pop-to screen", route: "pop-to", body: "{}", status: 422, code: "missing_field",
            pointer: "/screen"),
        ErrorCase(
            "a missing style", route: "present", body: #"{"screen":"a"}"#, status: 422, code: "missing_field",
            pointer: "/style"),
        ErrorCase(
            "an alert without its body", route: "present", body: #"{"style":"alert"}"#, status: 422,
            code: "missing_field", pointer: "/alert"),
        ErrorCase(
            "missing batch operations", route: "batch", body: "{}", status: 422, code: "missing_field",
            pointer: "/operations"),
        ErrorCase(
            "a misspelt field", route: "push", body: #"{"screen":"a","parmas":{}}"#, status: 422, code: "unknown_field",
            pointer: "/parmas"),
        ErrorCase(
            "70 unknown members after the screen", route: "push",
            body: #"{"screen":"a""# + (0..<70).map { #","y\#($0)":1"# }.joined() + "}",
            status: 422, code: "unknown_field", pointer: "/y0"),
        ErrorCase(
            "a screen named as the 71st member, after 70 unknown ones", route: "push",
            body: "{" + (0..<70).map { #""x\#($0)":1,"# }.joined() + #""screen":"a"}"#,
            status: 422, code: "unknown_field", pointer: "/x0"),
        ErrorCase(
            "an unknown pop field", route: "pop", body: #"{"reslt":1}"#, status: 422, code: "unknown_field",
            pointer: "/reslt"),
        ErrorCase(
            "an unknown alert field", route: "present",
            body: #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK"}],"colour":"red"}}"#, status: 422,
            code: "unknown_field", pointer: "/alert/colour"),
        ErrorCase(
            "an unknown field whose name needs escaping in a JSON pointer", route: "present",
            body: #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK"}],"é/x~y":1}}"#, status: 422,
            code: "unknown_field", pointer: "/alert/é~1x~0y"),
        ErrorCase(
            "an unknown field of an action named by the two characters to escape", route: "present",
            body: #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK","~/":1}]}}"#, status: 422,
            code: "unknown_field", pointer: "/alert/actions/0/~0~1"),
        ErrorCase("an empty screen name", route: "push", body: #"{"screen":""}"#, status: 422, code: "invalid_screen"),
        ErrorCase(
            "a screen name of 129 bytes", route: "push",
            body: #"{"screen":""# + String(repeating: "n", count: 129) + #""}"#,
            status: 422, code: "invalid_screen"),
        ErrorCase(
            "a title of 513 bytes", route: "push",
            body: #"{"screen":"a","title":""# + String(repeating: "t", count: 513) + #""}"#,
            status: 422, code: "invalid_screen"),
        ErrorCase(
            "an alert without actions", route: "present", body: #"{"style":"alert","alert":{"actions":[]}}"#,
            status: 422,
            code: "invalid_alert"),
        ErrorCase(
            "an alert with a repeated action id", route: "present",
            body: #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK"},{"id":"ok","title":"Fine"}]}}"#,
            status: 422, code: "invalid_alert"),
        ErrorCase(
            "an alert with two cancel actions", route: "present",
            body:
                #"{"style":"alert","alert":{"actions":[{"id":"a","title":"A","role":"cancel"},{"id":"b","title":"B","role":"cancel"}]}}"#,
            status: 422, code: "invalid_alert"),
        ErrorCase(
            "a text body", route: "push", body: #"{"screen":"a"}"#, contentType: "text/plain", status: 415,
            code: "unsupported_media_type"),
        ErrorCase(
            "a form body", route: "push", body: "screen=a", contentType: "application/x-www-form-urlencoded",
            status: 415,
            code: "unsupported_media_type"),
        ErrorCase("an empty batch", route: "batch", body: #"{"operations":[]}"#, status: 422, code: "empty_batch"),
    ]

    static let routeCases: [ErrorCase] = [
        ErrorCase("an unknown path", method: "GET", route: "/v1/nothing", status: 404, code: "not_found"),
        ErrorCase("an unknown operation", route: "jump", body: "{}", status: 404, code: "not_found"),
        ErrorCase("presentations without an id", method: "GET", route: "presentations", status: 404, code: "not_found"),
        ErrorCase(
            "PUT on push", method: "PUT", route: "push", body: #"{"screen":"a"}"#, status: 405,
            code: "method_not_allowed", allow: ["POST", "OPTIONS"]),
        ErrorCase(
            "GET on push", method: "GET", route: "push", status: 405, code: "method_not_allowed", allow: ["POST", "OPTIONS"]),
        ErrorCase(
            "DELETE on events", method: "DELETE", route: "events", status: 405, code: "method_not_allowed",
            allow: ["GET", "HEAD", "OPTIONS"]),
        ErrorCase(
            "POST on a session", route: "", body: "{}", status: 405, code: "method_not_allowed",
            allow: ["GET", "HEAD", "DELETE", "OPTIONS"]),
        ErrorCase(
            "GET on the session list", method: "GET", route: "/v1/sessions", status: 405, code: "method_not_allowed",
            allow: ["POST", "OPTIONS"]),
    ]

    static let treeCases: [ErrorCase] = [
        ErrorCase("popping the root screen", route: "pop", status: 409, code: "cannot_pop_root"),
        ErrorCase(
            "pop-to-root on the root screen", route: "pop-to-root", body: "{}", status: 409, code: "cannot_pop_root"),
        ErrorCase(
            "popping the root of a presented stack", setup: [("present", #"{"screen":"c","style":"sheet"}"#)],
            route: "pop",
            status: 409, code: "cannot_pop_root"),
        ErrorCase(
            "pop-to the top screen", route: "pop-to", body: #"{"screen":"s2"}"#, status: 409, code: "already_on_top"),
        ErrorCase(
            "pop-to an unknown screen", route: "pop-to", body: #"{"screen":"s99"}"#, status: 404,
            code: "screen_not_found"),
        ErrorCase(
            "pop-to a screen under a presentation", setup: [("present", #"{"screen":"c","style":"sheet"}"#)],
            route: "pop-to", body: #"{"screen":"s2"}"#, status: 409, code: "screen_not_in_top_stack"),
        ErrorCase(
            "an operation from a screen that is no longer the top", setup: [("push", #"{"screen":"a"}"#)],
            route: "push",
            body: #"{"screen":"b","from":"s2"}"#, status: 409, code: "top_changed"),
        ErrorCase(
            "dismissing with nothing presented", route: "dismiss", body: "{}", status: 409, code: "nothing_presented"),
        ErrorCase(
            "dismissing an unknown presentation", setup: [("present", #"{"screen":"c","style":"sheet"}"#)],
            route: "dismiss",
            body: #"{"presentation":"p99"}"#, status: 404, code: "presentation_not_found"),
        ErrorCase(
            "the status of an unknown presentation", method: "GET", route: "presentations/p99", status: 404,
            code: "presentation_not_found"),
        ErrorCase(
            "pushing onto a stack presented without navigation",
            setup: [("present", #"{"screen":"c","style":"sheet","navigation":false}"#)], route: "push",
            body: #"{"screen":"d"}"#, status: 409, code: "navigation_disabled"),
        ErrorCase(
            "pushing under an alert", setup: [("present", alert)], route: "push", body: #"{"screen":"d"}"#, status: 409,
            code: "blocked_by_alert"),
        ErrorCase(
            "replacing under an alert", setup: [("present", alert)], route: "replace", body: #"{"screen":"d"}"#,
            status: 409, code: "blocked_by_alert"),
        ErrorCase(
            "presenting over an alert", setup: [("present", alert)], route: "present",
            body: #"{"screen":"d","style":"modal"}"#, status: 409, code: "blocked_by_alert"),
        ErrorCase(
            "popping under an alert", setup: [("push", #"{"screen":"a"}"#), ("present", alert)], route: "pop",
            status: 409,
            code: "blocked_by_alert"),
        ErrorCase(
            "answering an alert with an unknown action", setup: [("present", alert)], route: "dismiss",
            body: #"{"result":{"action":"nope"}}"#, status: 422, code: "unknown_action"),
        ErrorCase(
            "answering an alert with a string", setup: [("present", alert)], route: "dismiss",
            body: #"{"result":"ok"}"#,
            status: 422, code: "invalid_alert_result"),
        ErrorCase(
            "answering an alert with an unknown field", setup: [("present", alert)], route: "dismiss",
            body: #"{"result":{"action":"ok","fields":{"age":"3"}}}"#, status: 422, code: "invalid_alert_result"),
        ErrorCase(
            "answering an alert field with a number", setup: [("present", alert)], route: "dismiss",
            body: #"{"result":{"action":"ok","fields":{"name":3}}}"#, status: 422, code: "invalid_alert_result"),
    ]

    static let queryAndHeaderCases: [ErrorCase] = [
        ErrorCase(
            "after that is not a number", method: "GET", route: "events?after=abc", status: 400, code: "invalid_query"),
        ErrorCase("a negative after", method: "GET", route: "events?after=-1", status: 400, code: "invalid_query"),
        // A sign, even one that keeps the number's value, is not a whole number's spelling.
        ErrorCase("an after with a plus sign", method: "GET", route: "events?after=%2B0", status: 400, code: "invalid_query"),
        ErrorCase("a wait of minus zero", method: "GET", route: "events?wait=-0", status: 400, code: "invalid_query"),
        ErrorCase(
            "a wait past 60 seconds", method: "GET", route: "events?after=1&wait=61", status: 400, code: "invalid_query"
        ),
        ErrorCase(
            "a wait that is not a number", method: "GET", route: "events?wait=soon", status: 400, code: "invalid_query"),
        ErrorCase(
            "a presentation wait past 60 seconds", setup: [("present", #"{"screen":"c","style":"sheet"}"#)],
            method: "GET",
            route: "presentations/p3?wait=61", status: 400, code: "invalid_query"),
        ErrorCase(
            "an unreadable If-Match", route: "push", body: #"{"screen":"a"}"#, headers: [("If-Match", "yesterday")],
            status: 400, code: "invalid_header"),
        ErrorCase(
            "an unreadable If-None-Match", method: "GET", route: "", headers: [("If-None-Match", "\"one")],
            status: 400,
            code: "invalid_header"),
        ErrorCase(
            "an Idempotency-Key of 129 characters", route: "push", body: #"{"screen":"a"}"#,
            headers: [("Idempotency-Key", String(repeating: "k", count: 129))], status: 400, code: "invalid_header"),
        ErrorCase(
            "an Idempotency-Key with a non-ASCII character", route: "push", body: #"{"screen":"a"}"#,
            headers: [("Idempotency-Key", "clé")], status: 400, code: "invalid_header"),
        ErrorCase(
            "an unreadable Last-Event-ID", method: "GET", route: "events",
            headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "latest")], status: 400, code: "invalid_header"
        ),
        ErrorCase(
            "a Last-Event-ID with a plus sign", method: "GET", route: "events",
            headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "+0")], status: 400, code: "invalid_header"
        ),
        ErrorCase(
            "a stale If-Match", setup: [("push", #"{"screen":"a"}"#)], route: "pop", body: "{}",
            headers: [("If-Match", "\"1\"")],
            status: 412, code: "revision_mismatch"),
        ErrorCase(
            "events after a future revision", method: "GET", route: "events?after=5", status: 400,
            code: "revision_ahead"),
    ]

    @Test("Bodies of the wrong syntax, shape, value or type are refused", arguments: bodyCases)
    func bodies(_ error: ErrorCase) throws {
        try check(error)
    }

    @Test("Unknown routes are 404 and wrong methods 405 with Allow", arguments: routeCases)
    func routes(_ error: ErrorCase) throws {
        try check(error)
    }

    @Test("Operations that do not fit the tree are refused", arguments: treeCases)
    func tree(_ error: ErrorCase) throws {
        try check(error)
    }

    @Test("Unreadable query arguments and headers are refused", arguments: queryAndHeaderCases)
    func queriesAndHeaders(_ error: ErrorCase) throws {
        try check(error)
    }

    /// Sets up a session, sends the request, checks the problem and that nothing changed.
    private func check(_ error: ErrorCase) throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            for step in error.setup {
                let response = try client.post(session.route(step.operation), text: step.body, token: session.token)
                try #require(response.status == 200, "setup \(step.operation) failed: \(response.text)")
            }
            let before = try client.snapshot(of: session)
            let path = error.route.hasPrefix("/") ? error.route : session.route(error.route)
            var headers = error.headers
            if let type = error.contentType, error.body != nil { headers.append(("Content-Type", type)) }
            let response = try client.request(
                error.method, path, token: session.token, headers: headers, body: error.body)
            let problem = response.expectProblem(error.status, error.code)
            if let pointer = error.pointer {
                #expect(problem.string("pointer") == pointer)
            }
            if let allow = error.allow {
                let allowed = (response.header("Allow") ?? "").split(separator: ",").map { $0.filter { $0 != " " } }
                #expect(Set(allowed) == Set(allow), "Allow: \(response.header("Allow") ?? "none")")
                // The detail names the methods Allow does, OPTIONS included.
                #expect(problem.string("detail") == "this route takes \(response.header("Allow") ?? "")")
            }
            if error.code == "revision_mismatch" {
                #expect(problem.int("revision") == before.revision)
            }
            let connection = client.isClosed ? try server.connect() : client
            #expect(try connection.snapshot(of: session) == before)
        }
    }

    @Test("A deleted session is 404 session_not_found, even with its own token")
    func sessionNotFound() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            #expect(try client.delete(session.route(), token: session.token).status == 204)
            try client.get(session.route(), token: session.token).expectProblem(404, "session_not_found")
            try client.post("pop", to: session).expectProblem(404, "session_not_found")
            try client.get(session.route("presentations/p3"), token: session.token).expectProblem(
                404, "session_not_found")
        }
    }
}
