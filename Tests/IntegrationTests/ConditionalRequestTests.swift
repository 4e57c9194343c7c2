import Presentation
import Testing

/// ETags, If-None-Match, If-Match, the `from` guard and Idempotency-Key replays.
@Suite("Conditional and idempotent requests")
struct ConditionalRequestTests {
    @Test("If-None-Match with the current revision is 304 with no body; a stale one gets the session")
    func ifNoneMatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let unchanged = try client.get(session.route(), token: session.token, headers: [("If-None-Match", "\"1\"")])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let changed = try client.get(session.route(), token: session.token, headers: [("If-None-Match", "\"1\"")])
            #expect(changed.expectSession(revision: 2).rootPathIDs == ["s2", "s3"])
            let again = try client.get(session.route(), token: session.token, headers: [("If-None-Match", "\"2\"")])
            #expect(again.status == 304)
            #expect(!client.isClosed)
        }
    }

    /// RFC 9110 15.4.5: a 304 MUST carry the Cache-Control a 200 to the same request would, so
    /// that a cache refreshing its stored answer with it learns no other rule than `no-store`.
    @Test("A 304 carries the Cache-Control the 200 would")
    func notModifiedKeepsCacheControl() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let whole = try client.get(session.route(), token: session.token)
            #expect(whole.header("Cache-Control") == "no-store")
            for method in ["GET", "HEAD"] {
                let unchanged = try client.request(
                    method, session.route(), token: session.token, headers: [("If-None-Match", "\"1\"")])
                #expect(unchanged.status == 304)
                #expect(unchanged.header("Cache-Control") == whole.header("Cache-Control"), "\(method)")
            }
        }
    }

    /// RFC 9110 8.6: a server MUST NOT send a 304 a Content-Length other than the one its 200
    /// would carry. libmicrohttpd counts the response it is given, so an empty one said 0.
    @Test("A 304's Content-Length is the 200's, for GET and HEAD, and the connection frames what follows")
    func notModifiedContentLength() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let whole = try client.get(session.route(), token: session.token)
            for method in ["GET", "HEAD"] {
                let unchanged = try client.request(
                    method, session.route(), token: session.token, headers: [("If-None-Match", "\"2\"")])
                #expect(unchanged.status == 304)
                #expect(unchanged.body.isEmpty)
                #expect(unchanged.header("Content-Length") == String(whole.body.count), "\(method)")
                #expect(unchanged.header("Content-Type") == nil, "\(method)")
            }
            #expect(try client.get(session.route(), token: session.token).body == whole.body)
        }
    }

    /// `*` matches any current representation (RFC 9110 13.1.2): a client that asks for the
    /// session only if it has none gets 304 for one that exists, whatever its revision. A list
    /// matches when any tag in it does.
    @Test("If-None-Match: * or a list naming the current revision is 304, with the current ETag")
    func ifNoneMatchAnyOrList() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let any = try client.get(session.route(), token: session.token, headers: [("If-None-Match", "*")])
            #expect(any.status == 304)
            #expect(any.body.isEmpty)
            #expect(any.header("ETag") == "\"2\"")
            let listed = try client.get(
                session.route(), token: session.token, headers: [("If-None-Match", "\"1\", W/\"2\"")])
            #expect(listed.status == 304)
            let other = try client.get(session.route(), token: session.token, headers: [("If-None-Match", "\"1\", \"3\"")])
            #expect(other.expectSession(revision: 2).rootPathIDs == ["s2", "s3"])
        }
    }

    /// RFC 9110 13.1.1: a server MUST NOT perform a request whose If-Match is false, a read
    /// included, and 13.2.2 judges If-Match before If-None-Match. A GET ignored If-Match, so a
    /// client reading "the session, if still at 1" got the newer tree as if it were.
    @Test("GET of a session honours If-Match: a stale revision is 412, before If-None-Match")
    func ifMatchOnRead() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            for method in ["GET", "HEAD"] {
                let stale = try client.request(method, session.route(), token: session.token, headers: [("If-Match", "\"1\"")])
                #expect(stale.status == 412, "\(method)")
                #expect(stale.header("ETag") == "\"2\"", "\(method)")
            }
            try client.get(session.route(), token: session.token, headers: [("If-Match", "\"1\"")])
                .expectProblem(412, "revision_mismatch")
            // If-Match first: the revision If-None-Match names does not turn a stale If-Match into a 304.
            try client.get(
                session.route(), token: session.token, headers: [("If-Match", "\"1\""), ("If-None-Match", "\"2\"")]
            ).expectProblem(412, "revision_mismatch")
            let current = try client.get(session.route(), token: session.token, headers: [("If-Match", "\"1\", \"2\"")])
            #expect(current.expectSession(revision: 2).rootPathIDs == ["s2", "s3"])
            let any = try client.get(session.route(), token: session.token, headers: [("If-Match", "*")])
            _ = any.expectSession(revision: 2)
            // Both hold: the revision is current and the client has it.
            let unchanged = try client.get(
                session.route(), token: session.token, headers: [("If-Match", "\"2\""), ("If-None-Match", "\"2\"")])
            #expect(unchanged.status == 304)
            // A weak tag matches nothing in If-Match, on a read as on a change.
            try client.get(session.route(), token: session.token, headers: [("If-Match", "W/\"2\"")])
                .expectProblem(412, "revision_mismatch")
            // Someone else's token learns nothing from the condition.
            try client.get(session.route(), token: "not-the-token", headers: [("If-Match", "\"1\"")])
                .expectProblem(401, "unauthorized")
        }
    }

    /// RFC 9110 5.3: a list field sent as several field lines is one list, the lines joined by
    /// commas; a proxy may split a list so. Only the first line was read, so a tag on the second
    /// matched nothing.
    @Test("If-None-Match and If-Match read a list sent over several field lines whole")
    func conditionsOverSeveralLines() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let unchanged = try client.get(
                session.route(), token: session.token, headers: [("If-None-Match", "\"7\""), ("If-None-Match", "\"1\"")])
            #expect(unchanged.status == 304)
            try client.post(
                "push", to: session, json: ["screen": "a"], headers: [("If-Match", "\"7\""), ("If-Match", "\"1\"")]
            ).expectSession(revision: 2)
            // Every line counts: a stale tag on each is still 412.
            try client.post(
                "push", to: session, json: ["screen": "b"], headers: [("If-Match", "\"1\""), ("If-Match", "\"7\"")]
            ).expectProblem(412, "revision_mismatch")
        }
    }

    @Test("Reads of one revision from many clients at once get the same answer, sent from one prepared response")
    func sharedReadAnswer() throws {
        try withServer(api: CORSTests.api) { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail", "params": ["id": 7]]).expectSession(revision: 2)
            let first = try client.get(session.route(), token: session.token)
            _ = first.expectSession(revision: 2)
            let port = server.port
            let results = Threads.run(8) { _ in
                let reader = try HTTPConnection(port: port)
                return try (0..<25).map { _ in try reader.get(session.route(), token: session.token) }
            }
            for result in results {
                for answer in try result.get() {
                    #expect(answer.status == 200 && answer.body == first.body)
                    #expect(answer.header("ETag") == "\"2\"" && answer.header("Cache-Control") == "no-store")
                    #expect(answer.header("Access-Control-Allow-Origin") == nil)
                }
            }
            // A header added for one request (CORS) goes to that request only, not into the shared answer.
            let crossOrigin = try client.get(session.route(), token: session.token, headers: [("Origin", CORSTests.allowed)])
            #expect(crossOrigin.body == first.body && crossOrigin.header("Access-Control-Allow-Origin") == CORSTests.allowed)
            let plain = try client.get(session.route(), token: session.token)
            #expect(plain.body == first.body && plain.header("Access-Control-Allow-Origin") == nil)
            // HEAD gets the same headers and no body.
            let head = try client.request("HEAD", session.route(), headers: [("Authorization", "Bearer \(session.token)")])
            #expect(head.status == 200 && head.body.isEmpty && head.header("ETag") == "\"2\"")
            #expect(head.header("Content-Length") == String(first.body.count))
            // The next revision is answered afresh.
            try client.post("pop", to: session, json: [:]).expectSession(revision: 3)
            let popped = try client.get(session.route(), token: session.token)
            #expect(popped.expectSession(revision: 3).rootPathIDs == ["s2"])
        }
    }

    @Test("If-Match with the current revision or * applies the change")
    func ifMatchCurrent() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"], headers: [("If-Match", "\"1\"")]).expectSession(
                revision: 2)
            try client.post("push", to: session, json: ["screen": "b"], headers: [("If-Match", "*")]).expectSession(
                revision: 3)
        }
    }

    @Test("A stale If-Match is 412 revision_mismatch naming the current revision, and changes nothing")
    func ifMatchStale() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2)
            let before = try client.snapshot(of: session)
            let refused = try client.post(
                "pop", to: session, json: [:] as [String: Any], headers: [("If-Match", "\"1\"")])
            let problem = refused.expectProblem(412, "revision_mismatch")
            #expect(problem.int("revision") == 2)
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("A weak tag in If-Match matches nothing (RFC 9110 compares strongly): 412, and nothing changes")
    func ifMatchWeak() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let refused = try client.post(
                "push", to: session, json: ["screen": "a"], headers: [("If-Match", "W/\"1\"")])
            refused.expectProblem(412, "revision_mismatch")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("from: an operation applies while the named screen is the top; a double tap on back pops once")
    func fromGuardsTheTop() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail", "from": "s2"]).expectSession(revision: 2)
            try client.post("pop", to: session, json: ["from": "s3"]).expectSession(revision: 3)
            let before = try client.snapshot(of: session)
            try client.post("pop", to: session, json: ["from": "s3"]).expectProblem(409, "top_changed")
            try client.post("push", to: session, json: ["screen": "x", "from": "s3"]).expectProblem(409, "top_changed")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("A retry with the same Idempotency-Key and body returns the first answer without applying again")
    func idempotentReplay() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let body = #"{"screen":"detail","params":{"id":7}}"#
            let key = [("Idempotency-Key", "tap-7f3a")]
            let first = try client.post(session.route("push"), text: body, token: session.token, headers: key)
            first.expectSession(revision: 2)
            #expect(first.header("Idempotent-Replayed") == nil)
            let retry = try client.post(session.route("push"), text: body, token: session.token, headers: key)
            #expect(retry.status == 200)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.header("ETag") == "\"2\"")
            #expect(retry.body == first.body)
            let now = try client.fetch(session)
            #expect(now.int("revision") == 2)
            #expect(now.rootPathIDs == ["s2", "s3"])
            #expect(try client.events(of: session, after: 1).count == 1)
        }
    }

    /// docs/api.md: a retry is replayed before its `If-Match` is judged. The first request's own
    /// change moved the session past the revision it named, so judged again the retry of a
    /// guarded change would always be 412, and a client could never learn its change was made.
    @Test("A retry with the same key is replayed whatever its If-Match names; the key's first use is judged")
    func replayBeforeIfMatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let body = #"{"screen":"detail"}"#
            let first = try client.post(
                session.route("push"), text: body, token: session.token,
                headers: [("Idempotency-Key", "guarded-1"), ("If-Match", "\"1\"")])
            first.expectSession(revision: 2)
            for condition in ["\"1\"", "\"9\""] {
                let retry = try client.post(
                    session.route("push"), text: body, token: session.token,
                    headers: [("Idempotency-Key", "guarded-1"), ("If-Match", condition)])
                #expect(retry.status == 200, "If-Match: \(condition)")
                #expect(retry.header("Idempotent-Replayed") == "true")
                #expect(retry.body == first.body)
            }
            // A new key with a stale If-Match is judged: 412, nothing made.
            let stale = try client.post(
                session.route("push"), text: body, token: session.token,
                headers: [("Idempotency-Key", "guarded-2"), ("If-Match", "\"1\"")])
            stale.expectProblem(412, "revision_mismatch")
            #expect(try client.fetch(session).int("revision") == 2)
        }
    }

    /// An app that queues a tap and retries it after a relaunch encodes the body again, from a
    /// dictionary whose key order (Swift's and Kotlin's hash maps are seeded per process) and
    /// spacing may differ: the same request, which must not be refused as another one.
    @Test("A retry whose body is the same JSON written another way (member order, spacing) is the same request")
    func replayOfReencodedBody() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let key = [("Idempotency-Key", "tap-8c1d")]
            let first = try client.post(
                session.route("push"), text: #"{"screen":"detail","params":{"id":7,"tab":"info"}}"#, token: session.token,
                headers: key)
            first.expectSession(revision: 2)
            let retry = try client.post(
                session.route("push"), text: "{ \"params\": {\"tab\": \"info\", \"id\": 7},\n  \"screen\": \"detail\" }",
                token: session.token, headers: key)
            #expect(retry.status == 200, "body: \(retry.text)")
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.text == first.text)
            #expect(try client.fetch(session).rootPathIDs == ["s2", "s3"])

            // A creation retried the same way answers the same session.
            let creation = [("Idempotency-Key", "create-8c1d")]
            let created = try client.post(
                "/v1/sessions", text: #"{"root":{"screen":"inbox","params":{"a":1,"b":[1,{"d":2,"c":3}]}},"ttl":60}"#,
                headers: creation)
            created.expectSession(status: 201, revision: 1)
            let again = try client.post(
                "/v1/sessions", text: #"{"ttl": 60, "root": {"params": {"b": [1, {"c": 3, "d": 2}], "a": 1}, "screen": "inbox"}}"#,
                headers: creation)
            #expect(again.status == 201 && again.header("Idempotent-Replayed") == "true", "body: \(again.text)")
            #expect(again.text == created.text)

            // An empty body is the empty object the route reads it as.
            let popKey = [("Idempotency-Key", "pop-8c1d")]
            try client.post(session.route("pop"), text: "", token: session.token, headers: popKey).expectSession(revision: 3)
            let popAgain = try client.post(session.route("pop"), text: "{ }", token: session.token, headers: popKey)
            #expect(popAgain.status == 200 && popAgain.header("Idempotent-Replayed") == "true", "body: \(popAgain.text)")
            #expect(try client.fetch(session).rootPathIDs == ["s2"])

            // Another value is still another request, wherever its members stand.
            try client.post(
                session.route("push"), text: #"{"params":{"id":8,"tab":"info"},"screen":"detail"}"#, token: session.token,
                headers: key
            ).expectProblem(422, "idempotency_key_reused")
        }
    }

    /// A durable session keeps its replies across a restart, and a retry comes exactly then:
    /// the server went down, the client's request failed, and it sends it again to the new
    /// server. A reply recorded by a server from before fingerprints were taken on canonical
    /// JSON carries the fingerprint of the body's bytes (FNV-1a of the route, a 0, the body,
    /// then the body's length), and the retry's bytes are the same.
    @Test("A retry answered by a reply stored with the fingerprint of its bytes (before canonical JSON) is replayed")
    func replayOfReplyStoredBeforeCanonicalFingerprints() throws {
        func bytesFingerprint(route: String, body: [UInt8]) -> [UInt8] {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(route.utf8) + [0] + body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let length = UInt64(body.count)
            return withUnsafeBytes(of: hash.bigEndian) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) }
        }
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let push = "{\"screen\": \"detail\", \"params\": {\"tab\": \"info\", \"id\": 7}}"
            let pushKey = [("Idempotency-Key", "tap-old-1")]
            let first = try client.post(session.route("push"), text: push, token: session.token, headers: pushKey)
            first.expectSession(revision: 2)
            let popKey = [("Idempotency-Key", "pop-old-1")]
            let popped = try client.post("pop", to: session, headers: popKey)
            popped.expectSession(revision: 3)
            // The replies as the older server stored them, and a restart restores them.
            let id = try #require(SessionID(rawValue: session.id))
            try server.store.update(id) { stored in
                stored.replies = ReplyLog(
                    restoring: stored.replies.recorded.map { key, reply in
                        var old = reply
                        old.fingerprint =
                            key == "pop-old-1"
                            ? bytesFingerprint(route: "pop", body: [])
                            : bytesFingerprint(route: "push", body: Array(push.utf8))
                        return (key, old)
                    })
            }
            let retry = try client.post(session.route("push"), text: push, token: session.token, headers: pushKey)
            #expect(retry.status == 200, "body: \(retry.text)")
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.text == first.text)
            let popRetry = try client.post("pop", to: session, headers: popKey)
            #expect(popRetry.status == 200, "body: \(popRetry.text)")
            #expect(popRetry.header("Idempotent-Replayed") == "true")
            #expect(try client.fetch(session)["revision"] as? Int == 3, "a retry was applied again")
            // Another request under the key is still refused.
            try client.post(session.route("push"), text: #"{"screen":"other"}"#, token: session.token, headers: pushKey)
                .expectProblem(422, "idempotency_key_reused")
        }
    }

    @Test("The same Idempotency-Key with another body is 422 idempotency_key_reused and changes nothing")
    func keyReusedForAnotherRequest() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let key = [("Idempotency-Key", "k-1")]
            try client.post(session.route("push"), text: #"{"screen":"a"}"#, token: session.token, headers: key)
                .expectSession()
            let before = try client.snapshot(of: session)
            try client.post(session.route("push"), text: #"{"screen":"b"}"#, token: session.token, headers: key)
                .expectProblem(422, "idempotency_key_reused")
            try client.post(session.route("replace"), text: #"{"screen":"a"}"#, token: session.token, headers: key)
                .expectProblem(422, "idempotency_key_reused")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("Idempotency keys belong to one session: the same key applies in another")
    func keysArePerSession() throws {
        try withServer { server in
            let client = try server.connect()
            let first = try client.createSession()
            let second = try client.createSession()
            let key = [("Idempotency-Key", "shared")]
            try client.post("push", to: first, json: ["screen": "a"], headers: key).expectSession(revision: 2)
            let other = try client.post("push", to: second, json: ["screen": "a"], headers: key)
            other.expectSession(revision: 2)
            #expect(other.header("Idempotent-Replayed") == nil)
        }
    }

    @Test("Creating a session with a repeated Idempotency-Key returns the same session and makes no other")
    func idempotentCreation() throws {
        try withServer(limits: Limits(maxSessions: 1)) { server in
            let client = try server.connect()
            let body = #"{"root":{"screen":"inbox"}}"#
            let key = [("Idempotency-Key", "create-1")]
            let first = try client.post("/v1/sessions", text: body, headers: key)
            let created = first.expectSession(status: 201, revision: 1)
            let retry = try client.post("/v1/sessions", text: body, headers: key)
            let replayed = retry.expectSession(status: 201, revision: 1)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(replayed.string("id") == created.string("id"))
            #expect(replayed.string("token") == created.string("token"))
            #expect(retry.header("Location") == first.header("Location"))
            try client.post("/v1/sessions", text: #"{"root":{"screen":"other"}}"#, headers: key)
                .expectProblem(422, "idempotency_key_reused")
        }
    }
}
