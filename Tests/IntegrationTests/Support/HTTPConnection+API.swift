import Testing

/// Requests in the API's own terms: bearer tokens, JSON bodies, sessions.
extension HTTPConnection {
    /// Sends a request and reads its answer; `token` goes out as `Authorization: Bearer`.
    func request(
        _ method: String,
        _ path: String,
        token: String? = nil,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration? = nil
    ) throws(ClientError) -> ClientResponse {
        var fields = headers
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        try write(method, path, headers: fields, body: body)
        return try readResponse(to: method, timeout: timeout)
    }

    func get(
        _ path: String,
        token: String? = nil,
        headers: [(String, String)] = [],
        timeout: Duration? = nil
    ) throws(ClientError) -> ClientResponse {
        try request("GET", path, token: token, headers: headers, timeout: timeout)
    }

    func delete(_ path: String, token: String? = nil, headers: [(String, String)] = []) throws(ClientError)
        -> ClientResponse
    {
        try request("DELETE", path, token: token, headers: headers)
    }

    /// POSTs `json` (dictionary and array literals) as `application/json`.
    func post(_ path: String, json: Any, token: String? = nil, headers: [(String, String)] = []) throws(ClientError)
        -> ClientResponse
    {
        try post(path, bytes: JSONText.bytes(json), token: token, headers: headers)
    }

    /// POSTs a body exactly as written (malformed JSON, exact replays).
    func post(
        _ path: String,
        text: String,
        contentType: String? = "application/json",
        token: String? = nil,
        headers: [(String, String)] = []
    ) throws(ClientError) -> ClientResponse {
        try post(path, bytes: Array(text.utf8), contentType: contentType, token: token, headers: headers)
    }

    func post(
        _ path: String,
        bytes: [UInt8],
        contentType: String? = "application/json",
        token: String? = nil,
        headers: [(String, String)] = []
    ) throws(ClientError) -> ClientResponse {
        let typed = contentType.map { [("Content-Type", $0)] } ?? []
        return try request("POST", path, token: token, headers: typed + headers, body: bytes)
    }

    /// POSTs an operation (`push`, `pop`, ...) to a session; no `json` sends an empty body.
    func post(
        _ operation: String,
        to session: CreatedSession,
        json: Any? = nil,
        headers: [(String, String)] = []
    ) throws(ClientError) -> ClientResponse {
        guard let json else {
            return try request("POST", session.route(operation), token: session.token, headers: headers, body: [])
        }
        return try post(session.route(operation), json: json, token: session.token, headers: headers)
    }

    /// Creates a session and insists on 201.
    func createSession(root: [String: Any] = ["screen": "inbox"], headers: [(String, String)] = [])
        throws(ClientError) -> CreatedSession
    {
        let response = try post("/v1/sessions", json: ["root": root], headers: headers)
        guard response.status == 201 else { throw .unexpectedStatus(response.status, body: response.text) }
        guard let created = CreatedSession(answer: response) else {
            throw .malformedResponse("a created session without id or token: \(response.text)")
        }
        return created
    }

    /// A session of `inbox` with `detail` pushed on it: revision 2.
    func createSessionWithDetail() throws -> CreatedSession {
        let session = try createSession()
        try post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
        return session
    }

    /// Presents `count` sheets on `session`, one over the other, in batches of 100.
    func presentSheets(_ count: Int, on session: CreatedSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let present: [String: Any] = ["op": "present", "screen": "x", "style": "sheet"]
        for start in stride(from: 0, to: count, by: 100) {
            let batch = try post(
                session.route("batch"), json: ["operations": Array(repeating: present, count: min(100, count - start))],
                token: session.token, headers: [("Prefer", "return=minimal")])
            #expect(batch.status == 200, "body: \(batch.text.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    /// `GET` the session, insisting on 200.
    func fetch(_ session: CreatedSession) throws(ClientError) -> [String: Any] {
        let response = try get(session.route(), token: session.token)
        guard response.status == 200 else { throw .unexpectedStatus(response.status, body: response.text) }
        return try response.json()
    }

    /// The revision and tree as they stand now, for "a failure changed nothing".
    func snapshot(of session: CreatedSession) throws(ClientError) -> SessionSnapshot {
        SessionSnapshot(try fetch(session))
    }

    /// Posts `body` to the session's `route`, expects the problem (with `pointer` when given),
    /// and that the session and its events after `revision` are as they were.
    func expectRefused(
        _ route: String, body: String, of session: CreatedSession, at revision: Int,
        status: Int, code: String, pointer: String?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try snapshot(of: session)
        let problem = try post(session.route(route), text: body, token: session.token)
            .expectProblem(status, code, sourceLocation: sourceLocation)
        if let pointer { #expect(problem.string("pointer") == pointer, sourceLocation: sourceLocation) }
        #expect(try snapshot(of: session) == before, sourceLocation: sourceLocation)
        #expect(try events(of: session, after: revision).isEmpty, sourceLocation: sourceLocation)
    }

    /// Exports `session` and imports the document, expecting both to succeed: the copy, a new
    /// session with its own id and token, and the import's answer.
    func exportAndImport(_ session: CreatedSession, sourceLocation: SourceLocation = #_sourceLocation) throws -> (
        copy: CreatedSession, answer: [String: Any]
    ) {
        let export = try get(session.route("export"), token: session.token)
        #expect(export.status == 200, "body: \(export.text)", sourceLocation: sourceLocation)
        let imported = try post("/v1/sessions/import", bytes: export.body)
        #expect(imported.status == 201, "body: \(imported.text)", sourceLocation: sourceLocation)
        let copy = try #require(CreatedSession(answer: imported), sourceLocation: sourceLocation)
        return (copy, copy.json)
    }

    /// The kept events after `after` (all without it), insisting on 200.
    func events(of session: CreatedSession, after: Int? = nil) throws(ClientError) -> [[String: Any]] {
        let query = after.map { "?after=\($0)" } ?? ""
        let response = try get(session.route("events") + query, token: session.token)
        guard response.status == 200 else { throw .unexpectedStatus(response.status, body: response.text) }
        return try response.json()["events"] as? [[String: Any]] ?? []
    }
}
