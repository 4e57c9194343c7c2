import JSON
import MicroHTTP
import Presentation
import Synchronization

/// Creating, reading, deleting and changing sessions.
extension PresentationAPI {
    /// With durable storage the answer comes once the session is on disk; the connection is
    /// parked meanwhile, as for a change, so no worker thread waits for the fsync.
    func createSession(_ request: HTTPRequest) throws -> HTTPReply {
        let (root, timeToLive) = try plainCreation(request) ?? {
            var fields = try bodyFields(of: request, allowEmpty: false, parser: creationParser)
            return try OperationDecoding.creation(from: &fields)
        }()
        let key = try idempotencyKey(request)
        let store = store
        // Checked before answerCreation counts it against the client's creation rate: a root
        // too heavy for any session is a refused body, which costs nothing, as for an import.
        try store.limits.checkNewSession(root: root)
        // Only a keyed creation is ever compared with another, as a change's fingerprint is.
        let fingerprint = key == nil ? [] : Fingerprint.of(route: "create", json: request.body, parser: creationParser)
        return answerCreation(key: key, fingerprint: fingerprint, timeToLive: timeToLive, from: request) { done in
            store.create(root: root, timeToLive: timeToLive, now: self.now(), completion: done)
        }
    }

    /// Answers a creation (or an import, `key` nil): `create` starts it and calls back with
    /// the new session, which is answered with 201, its JSON, its token and its `Location`.
    /// With an idempotency key, the first answer is recorded and replayed (`creations`).
    /// Each creation made, not replayed, counts against the client's rate (`creationRate`).
    func answerCreation(
        key: String?, fingerprint: [UInt8], timeToLive: Int?, from request: HTTPRequest,
        _ create: @escaping @Sendable (@escaping @Sendable (Result<NewSession, PresentationError>) -> Void) -> Void
    ) -> HTTPReply {
        let limits = store.limits
        let rate = creationRate.flatMap { limit in request.clientAddress.map { (limit, $0) } }
        let now = now
        let make = { @Sendable (done: @escaping @Sendable (ReplyCache.Made) -> Void) in
            if let (limit, client) = rate, let wait = limit.take(for: client, at: now().timeIntervalSinceReferenceDate) {
                return done(.failure(APIError.creationRateLimited(perMinute: limit.perMinute, retryAfter: wait)))
            }
            create { result in
                done(
                    result.mapError { $0 as any Error }.map { created in
                        let session = created.session
                        var writer = JSONWriter()
                        writer.write(session: session, token: created.token, timeToLive: limits.timeToLive(requested: timeToLive))
                        let response = HTTPResponse.created(
                            writer.bytes, revision: session.revision, location: "/v1/sessions/" + session.id.rawValue)
                        return ReplyCache.CreationReply(fingerprint: fingerprint, response: response)
                    })
            }
        }
        return answerOnceWritten { answer in
            guard let key else { return make { made in answer(Self.response(made.map(\.response))) } }
            creations.reply(for: key, make: make) { result in
                let response = result.flatMap { reply, replayed -> Result<HTTPResponse, any Error> in
                    guard reply.fingerprint == fingerprint else { return .failure(APIError.idempotencyKeyReused) }
                    var response = reply.response
                    if replayed { response.headers.set("Idempotent-Replayed", "true") }
                    return .success(response)
                }
                answer(Self.response(response))
            }
        }
    }

    /// Starts a write that `start` answers through the closure it is given: at once in memory,
    /// so the reply is `.now`, or once a durable store has written, the connection parked
    /// meanwhile so that no worker waits for the fsync. A shutdown does not cut the wait
    /// short: the write may be on disk already, and the journal finishes its queue first.
    private func answerOnceWritten(_ start: (@escaping @Sendable (HTTPResponse) -> Void) -> Void) -> HTTPReply {
        let deferred = HTTPDeferredResponse(endsWithShutdown: false)
        start { deferred.complete(with: $0) }
        return deferred.completed.map { .now($0) } ?? .later(deferred)
    }

    /// The response, or the problem details of what kept it from being made.
    private static func response(_ made: Result<HTTPResponse, any Error>) -> HTTPResponse {
        switch made {
        case .success(let response): response
        case .failure(let error): ProblemDetails(for: error).response
        }
    }

    /// The most read route, so the session is read in place, not copied out of the store.
    func getSession(_ rawID: Substring, _ request: HTTPRequest) throws -> HTTPResponse {
        let digest = try presentedDigest(request)
        let id = try sessionID(rawID)
        // Both read before the session, so that a header refused keeps no session alive; nil
        // without one, `.some(nil)` for `*`.
        let (ifMatch, ifNoneMatch) = request.headers.lists("If-Match", "If-None-Match")
        let expected = try ifMatch.map { header throws(APIError) in try ETag.revisions(in: header, name: .ifMatch) }
        let notModified = try ifNoneMatch.map { header throws(APIError) in
            try ETag.revisions(in: header, name: .ifNoneMatch)
        }
        var answer: Result<HTTPResponse, any Error>?
        let found = store.read(id) { session in
            // Only the owner's read keeps the session alive.
            guard session.tokenDigest.matches(digest) else {
                answer = .failure(APIError.unauthorized)
                return false
            }
            // RFC 9110 13.2.2: If-Match is judged first, on a read as on a change; a stale
            // revision is 412, whatever If-None-Match says, and a refusal keeps the session
            // alive no more than a refused change does.
            if let expected, let revisions = expected, !revisions.contains(session.revision) {
                answer = .failure(PresentationError.revisionMismatch(current: session.revision))
                return false
            } else if let notModified, notModified == nil || notModified?.contains(session.revision) == true {
                // RFC 9110 15.4.5: a 304 carries the Cache-Control the 200 would, or a cache
                // refreshing its stored answer with it would keep it by rules of its own. Its
                // body is the 200's, never sent: libmicrohttpd states its length, which must be
                // the 200's if stated at all (RFC 9110 8.6), and an empty one would say 0.
                let headers: HTTPHeaders = ["ETag": ETag.value(for: session.revision), "Cache-Control": "no-store"]
                answer = .success(
                    HTTPResponse(status: .notModified, headers: headers, body: .shared(sessionJSON.json(for: session))))
            } else {
                answer = .success(sessionJSON.readResponse(for: session))
            }
            return true
        }
        guard found, let answer else { throw PresentationError.sessionNotFound }
        return try answer.get()
    }

    func deleteSession(_ id: Substring, _ request: HTTPRequest) throws -> HTTPReply {
        // The token first, as on every session route: a request without one learns nothing,
        // not even whether its conditional headers could be read (SECURITY.md).
        let digest = try presentedDigest(request)
        // RFC 9110 13.1.1: a DELETE whose If-Match names none of the session's revisions must
        // not be performed (412), as for a change; `*` asks only that the session exist.
        var expected = try Self.ifMatch(request)
        // RFC 9110 13.1.2: If-None-Match too, and for a method other than GET or HEAD a false
        // one (`*`, the session existing; or a list naming its revision) is 412, never a
        // deletion. `*` is what a client sends to act only on what is not there.
        let unwanted = try request.headers.list("If-None-Match").map { header throws(APIError) in
            try ETag.revisions(in: header, name: .ifNoneMatch)
        }
        // Never counted as a use: a deletion made leaves no session to keep alive, and one
        // refused (a stale If-Match, a failed write) must leave its idle deadline as it was,
        // as a refused change does.
        let session = try authorizedSession(id, digest: digest) { _ in false }
        if let unwanted {
            // If-Match is judged first (RFC 9110 13.2.2); either false is the same 412.
            let revision = session.revision
            let matched = expected.map { $0?.contains(revision) ?? true } ?? true
            if !matched || unwanted?.contains(revision) ?? true {
                throw PresentationError.revisionMismatch(current: revision)
            }
            // The revision judged, as If-Match: a change landing before the deletion is 412
            // rather than a deletion the condition was never judged on.
            expected = .some([revision])
        }
        let id = session.id
        return answerOnceWritten { answer in
            // The token judged again in the session's turn: a rotation answered before the
            // deletion's turn came has revoked it (the snapshot above was read before).
            store.delete(id, ifAt: expected ?? nil, heldBy: digest) { [self] deleted in
                let response = deleted.mapError { $0 as any Error }.flatMap { deleted -> Result<HTTPResponse, any Error> in
                    guard deleted else { return .failure(PresentationError.sessionNotFound) }
                    sessionJSON.remove(id)
                    eventFrames.remove(id)
                    return .success(HTTPResponse(status: .noContent))
                }
                answer(Self.response(response))
            }
        }
    }

    /// `POST /v1/sessions/{id}/token`: a new token, returned once; the old one stops working at once.
    ///
    /// Not a navigation change, so no revision and no event. Open event streams and waits made with
    /// the old token end at their next wake-up rather than go on serving it.
    func rotateToken(_ rawID: Substring, _ request: HTTPRequest) throws -> HTTPReply {
        let presented = try presentedDigest(request)
        let id = try sessionID(rawID)
        try bodyFields(of: request, allowEmpty: true).finish()
        let fresh = SessionToken.random()
        return answerOnceWritten { answer in
            store.update(id, { session -> Int in
                guard session.tokenDigest.matches(presented) else { throw APIError.unauthorized }
                session.replaceToken(with: fresh)
                return session.revision
            }) { result in
                let response = result.map { revision in
                    var writer = JSONWriter(capacity: 128)
                    writer.beginObject()
                    writer.key("id")
                    writer.writeString(id.rawValue)
                    writer.key("token")
                    writer.writeString(fresh.rawValue)
                    writer.endObject()
                    return HTTPResponse.json(writer.bytes, revision: revision)
                }
                answer(Self.response(response))
            }
        }
    }

    /// Applies steps as one revision, honouring `If-Match` and `Idempotency-Key`, all
    /// under the session's lock so that a check and the change it guards cannot be split.
    /// `token` is the digest of the request's token, read by the caller before the body was,
    /// and hashed before the session's lock is taken, to hold that no longer than the change needs.
    ///
    /// With durable storage the answer comes once the change is on disk; the connection is
    /// parked meanwhile, so no worker thread waits for the fsync (docs/performance.md).
    ///
    /// `parser` is the one the body was read with: the key's fingerprint reads it again.
    func mutate(
        _ rawID: Substring, _ steps: Mutation.Steps, _ request: HTTPRequest, token: SessionTokenDigest, route: String,
        parser: JSONParser? = nil
    ) throws -> HTTPReply {
        let id = try sessionID(rawID)
        let expected = try Self.ifMatch(request)
        let key = try idempotencyKey(request)
        let mutation = Mutation(
            api: self, steps: steps, token: token, key: key,
            fingerprint: key == nil ? .none : Fingerprint.Keyed(route: route, json: request.body, parser: parser ?? self.parser),
            expected: expected,
            moment: now(), limits: store.limits, preference: ReturnPreference(request.headers),
            answersInPlace: store.changesInPlace)
        store.change(id, { session in try mutation.apply(to: &session) }, completion: { mutation.finish($0) })
        return mutation.reply()
    }

    /// `edit`: what the steps did to the topmost stack, when that is all (for `SessionJSONCache`).
    func answer(_ outcome: Mutation.Outcome, _ preference: ReturnPreference, _ edit: TreeLayout.Edit?) -> HTTPResponse {
        switch outcome {
        case .applied(let session, let presented):
            return answer(applied: session, presented, preference, edit)
        case .answered(let response):
            return response
        case .recorded(let reply, let replay), .replayed(let reply, let replay):
            // A recorded answer is always the whole session, so that each retry may prefer
            // either; the whole is sent as one copy shared by every retry of the change.
            let summary = preference == .minimal ? Self.summary(ofRecorded: reply.body) : nil
            var response = HTTPResponse.json(
                body: summary.map(HTTPResponse.Body.bytes)
                    ?? .shared(replayedAnswers.body(of: reply, for: replay.key, in: replay.session)),
                status: HTTPStatus(rawValue: reply.status), revision: reply.revision)
            if case .replayed = outcome { response.headers.set("Idempotent-Replayed", "true") }
            return summary == nil ? response : Self.minimal(response)
        }
    }

    /// The answer to a change applied to `session`, which is the session as changed: its
    /// summary, or its JSON (kept for the reads that follow when the session is being read),
    /// with the new presentation's id after a present.
    func answer(
        applied session: Session, _ presented: PresentationID?, _ preference: ReturnPreference, _ edit: TreeLayout.Edit?
    ) -> HTTPResponse {
        if preference == .minimal {
            var writer = JSONWriter(capacity: 256)
            writer.write(summaryOf: session, presented: presented)
            return Self.minimal(.json(writer.bytes, revision: session.revision))
        }
        let json = sessionJSON.json(for: session, changedBy: edit)
        guard let presented else { return .json(json, revision: session.revision) }
        var writer = JSONWriter(continuing: json.bytes)
        writer.key("presentation")
        writer.writeString(presented.rawValue)
        writer.endObject()
        return .json(writer.bytes, revision: session.revision)
    }

    /// `response` marked as honouring `Prefer: return=minimal`.
    private static func minimal(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add(ReturnPreference.minimalApplied.name, ReturnPreference.minimalApplied.value)
        return response
    }

    /// A recorded answer's summary. The bytes are JSON this server wrote, so they parse; read
    /// with no depth limit of its own, since the tree nests a body's values deeper than the body
    /// did (a screen's result under its presentations), and `--max-params-depth` goes to 512:
    /// at 256 a session holding one deep value had every keyed minimal answer sent whole.
    private static func summary(ofRecorded body: [UInt8]) -> [UInt8]? {
        guard let session = try? JSONParser(maxDepth: .max, maxStringBytes: body.count).parse(body) else { return nil }
        var writer = JSONWriter(capacity: 256)
        writer.write(summaryOf: session)
        return writer.bytes
    }

    /// The `If-Match` revisions, over every field line: nil without the header, `.some(nil)`
    /// for `*` (any revision, the session need only exist).
    private static func ifMatch(_ request: HTTPRequest) throws(APIError) -> [Int]?? {
        try request.headers.list("If-Match").map { header throws(APIError) in
            try ETag.revisions(in: header, name: .ifMatch)
        }
    }

    /// The `Idempotency-Key` header: 1 to 128 printable ASCII characters.
    private func idempotencyKey(_ request: HTTPRequest) throws(APIError) -> String? {
        var key: String?
        var repeated = false
        request.headers.withValue("Idempotency-Key") { value, twice in
            key = value.map { String(decoding: $0, as: UTF8.self) }
            repeated = twice
        }
        // Two keys name no one request to replay (the IETF draft asks for 400 too).
        if repeated { throw .invalidHeader(name: "Idempotency-Key", reason: "sent more than once; a request carries one key") }
        guard let key else { return nil }
        guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw .invalidHeader(name: "Idempotency-Key", reason: "1 to 128 printable ASCII characters, no spaces")
        }
        return key
    }

}
