import JSON
import MicroHTTP
import Presentation

/// Reading what happened: the event history, live streams and presentation outcomes.
extension PresentationAPI {
    func events(_ rawID: Substring, _ request: HTTPRequest) throws -> HTTPReply {
        let digest = try presentedDigest(request, allowQueryToken: true)
        // What the request asks is read before the session is, so that a refused one keeps
        // no session alive.
        let after = try integerQuery("after", request, in: 0...Int.max)
        let includesSession = try Self.includesSession(request)
        let streams = Self.asksForStream(request)
        // A stream resumes after `Last-Event-ID`, else `after`; only a read (a long poll) waits.
        let resume = streams ? try Self.lastEventID(request) ?? after : after
        let wait = streams ? 0 : try integerQuery("wait", request, in: 0...configuration.maxWaitSeconds) ?? 0
        let session = try authorizedSession(rawID, digest: digest) { session in
            // A stream resumes from anywhere (out of the kept history, with `event: reset`).
            streams || resume.map { (try? session.checkEventsKept(after: $0)) != nil } ?? true
        }
        if streams {
            return .now(try eventStream(session, after: resume, includingSession: includesSession))
        }
        // Without `after`, every kept event: some but in an imported session that kept none (a
        // change keeps its own), so a wait is for clients that name the revision they have.
        let start = after ?? session.revision
        let backlog = try after.map { revision throws(PresentationError) in try session.events(after: revision) }
            ?? session.keptEvents
        let sessionJSON = includesSession ? sessionJSON : nil
        guard backlog.isEmpty, wait > 0 else { return .now(eventsResponse(backlog, session, sessionJSON)) }
        return SessionWaiter.wait(
            for: session, in: store, seconds: wait, renewals: renewals,
            ready: { [self] session in
                do {
                    let events = try session.events(after: start)
                    return events.isEmpty ? nil : eventsResponse(events, session, sessionJSON)
                } catch {
                    // So many revisions landed at once that history was trimmed past `start`.
                    return ProblemDetails(for: error).response
                }
            },
            timeout: { [self] session in eventsResponse([], session, sessionJSON) })
    }

    /// True when `Accept` names `text/event-stream` with a weight above 0: `q=0` says the type
    /// is not acceptable (RFC 9110 12.4.2), so a client that names the stream to refuse it gets
    /// the JSON listing. Other ranges, `*/*` among them, leave JSON the answer.
    private static func asksForStream(_ request: HTTPRequest) -> Bool {
        guard let accept = request.headers.list("Accept") else { return false }
        return accept.split(separator: ",").contains { range in
            var parameters = range.split(separator: ";").makeIterator()
            guard let type = parameters.next(), type.trimmingSpaces.lowercased() == "text/event-stream" else { return false }
            return !parameters.contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" else { return false }
                return Double(pair[1].trimmingSpaces) == 0
            }
        }
    }

    /// `Last-Event-ID`, the revision an event stream resumes after; nil without one.
    private static func lastEventID(_ request: HTTPRequest) throws(APIError) -> Int? {
        guard let lastEventID = request.headers["Last-Event-ID"] else { return nil }
        guard let revision = Int(decimalDigits: lastEventID.trimmingSpaces) else {
            throw .invalidHeader(name: "Last-Event-ID", reason: "expected a revision")
        }
        return revision
    }

    /// `?include=session`: the session as it stands goes with the events (after each
    /// revision's, in a stream), so that a client following them needs no read of its own.
    private static func includesSession(_ request: HTTPRequest) throws(APIError) -> Bool {
        guard request.hasQuery("include") else { return false }
        guard request.queryValue("include") == "session" else {
            throw .invalidQuery(name: "include", reason: "the only value is session")
        }
        return true
    }

    func presentationStatus(_ rawID: Substring, _ rawPresentation: Substring, _ request: HTTPRequest) throws -> HTTPReply {
        let digest = try presentedDigest(request)
        // What the request asks is read before the session is, so that a refused one keeps
        // no session alive. An id too long to be one of ours names nothing, judged after the
        // token and the session as any unknown id is.
        let presentation = PresentationID(rawValue: String(rawPresentation))
        let wait = try integerQuery("wait", request, in: 0...configuration.maxWaitSeconds) ?? 0
        // With `after`, a value emitted after that revision ends the wait too: the remote form of
        // a result that is a stream, as the wait alone is of one that is a future.
        let after = try integerQuery("after", request, in: 0...Int.max)
        let session = try authorizedSession(rawID, digest: digest) { session in
            presentation.map { (try? session.outcome(of: $0)) != nil } ?? false
        }
        guard let presentation else { throw APIError.presentationIDTooLong }
        let outcome = try session.outcome(of: presentation)
        guard outcome.status == .presented, wait > 0, !Self.emitted(by: presentation, in: session, after: after) else {
            return .now(Self.statusResponse(outcome, session))
        }
        return SessionWaiter.wait(
            for: session, in: store, seconds: wait, renewals: renewals,
            ready: { session in
                guard let outcome = try? session.outcome(of: presentation),
                    outcome.status != .presented || Self.emitted(by: presentation, in: session, after: after)
                else { return nil }
                return Self.statusResponse(outcome, session)
            },
            timeout: { session in
                (try? session.outcome(of: presentation)).map { Self.statusResponse($0, session) }
                    ?? ProblemDetails(for: PresentationError.outcomeNotKept(presentation)).response
            })
    }

    /// Whether open presentation `id` emitted a value after revision `after` (never, without one).
    private static func emitted(by id: PresentationID, in session: Session, after: Int?) -> Bool {
        guard let after, let emitted = session.lastEmitted(by: id) else { return false }
        return emitted.revision > after
    }

    /// Server-Sent Events after `after` (`Last-Event-ID`, else `after`), else from now.
    ///
    /// A stream resuming from before the kept history opens with `event: reset` at the current
    /// revision, as one that falls behind while open is told, rather than 410: an EventSource
    /// reconnecting by itself after a long cut takes any status but 200 as final and stops,
    /// where `reset` (and the session, when included) lets it carry on. So does one resuming
    /// from past the current revision (not 400): the client saw a revision the server no
    /// longer has (restored from a backup, or restarted after a failed flush).
    private func eventStream(_ session: Session, after: Int?, includingSession: Bool) throws -> HTTPResponse {
        let start = after ?? session.revision
        var backlog: [Event] = []
        var skipped: [UInt8] = []
        do {
            backlog = try session.events(after: start)
        } catch {
            switch error {
            case .historyExpired, .revisionAhead: break
            default: throw error
            }
            skipped = EventStreamFrame.reset(revision: session.revision)
        }
        let stream = HTTPStream()
        let subscriber = EventSubscriber(
            id: session.id, store: store, stream: stream, after: session.revision, openedWith: session.tokenDigest,
            frames: eventFrames, sessionJSON: includingSession ? sessionJSON : nil)
        // A stream that includes the session opens with it as it stands, whatever the backlog:
        // a client resuming after a cut may have missed the last one. Queued as the array the
        // frame cache keeps, shared by every stream of the session at this revision, not copied;
        // a large backlog too, a run a revision, shared by every answer that sends it
        // (`EventRuns`), by the rule an events read follows (`sharedEventsFrom`).
        let frames = EventStreamFrame.messages(for: backlog)
        let missed: [HTTPStream.Message] =
            frames.count < Self.sharedEventsFrom
            ? [.bytes(EventStreamFrame.opening + skipped + frames)]
            : [.bytes(EventStreamFrame.opening + skipped)]
                + eventRuns.runs(of: session.id, backlog, as: .frames).map(HTTPStream.Message.shared)
        stream.send(together: missed + [.bytes(subscriber.sessionMessage(session) ?? [])])
        // Watched only from the revision the stream has reached: a change landing between the
        // look above and a plain watch was told to no one, and a deletion right after it ended
        // the stream with `deleted` at the look's revision, the change never sent (the
        // concurrency review). Moved on, the stream catches up from the session as it is and
        // tries again; past a few tries (a session changing that fast) it watches as before.
        var reached = session.revision
        var started: Watch?
        for _ in 0..<Self.watchAttempts where started == nil {
            switch store.watch(session.id, ifAt: reached, { change in subscriber.handle(change) }) {
            case .watching(let watch): started = watch
            case .gone: throw PresentationError.sessionNotFound
            case .moved(let current):
                // Ended (`revoked`: the token was replaced meanwhile) is answered as it stands.
                guard subscriber.pump(reading: current) else { return Self.streamResponse(stream) }
                reached = current.revision
            }
        }
        guard let watch = started ?? store.watch(session.id, { change in subscriber.handle(change) }) else {
            throw PresentationError.sessionNotFound
        }
        // Followed live, the session is in use: each beat keeps it alive, as a read would,
        // while the stream's token is still the session's (the owner's use, not a revoked one's).
        let store = store, id = session.id, openedWith = session.tokenDigest
        heartbeat.add(stream) { store.renew(id, followedWith: openedWith) }
        let unfollow = renewals.follow(id, openedWith: openedWith, renewedOtherwiseEvery: configuration.heartbeatSeconds)
        let heartbeat = heartbeat
        stream.onClose {
            unfollow?()
            watch.cancel()
            heartbeat.remove(stream)
        }
        // Anything that changed between the snapshot and the watch goes out now.
        subscriber.pump()
        return Self.streamResponse(stream)
    }

    /// Tries of a stream's watch at the revision it has reached (`eventStream`).
    static let watchAttempts = 8

    private static func streamResponse(_ stream: HTTPStream) -> HTTPResponse {
        let headers: HTTPHeaders = [
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        ]
        return HTTPResponse(status: .ok, headers: headers, body: .stream(stream))
    }

    /// The events, and the session with them when `sessionJSON` is given (`include=session`).
    ///
    /// The session is never copied into the answer: it is sent from the cache. Nor are events
    /// past `sharedEventsFrom` bytes: they are sent as the runs `eventRuns` shares by revision.
    /// A kept history reaches megabytes, and an answer is held until its client reads it:
    /// written into each, fifty reads that never read held 197 MB, and a session of megabytes
    /// long-polled by hundreds of clients hundreds of megabytes more.
    private func eventsResponse(_ events: [Event], _ session: Session, _ sessionJSON: SessionJSONCache?) -> HTTPResponse {
        var writer = JSONWriter()
        writer.writeOpening(events: events, revision: session.revision)
        var pieces: [SharedBytes]
        if writer.written < Self.sharedEventsFrom {
            // Most answers: a change's few events, or none at a long poll's timeout.
            if sessionJSON == nil {
                writer.endObject()
                return .json(writer.bytes, revision: session.revision)
            }
            pieces = [writer.withWrittenBytes { SharedBytes(copying: $0) }]
        } else {
            var head = JSONWriter(capacity: 64)
            head.writeRunsHead(revision: session.revision)
            pieces = [head.withWrittenBytes { SharedBytes(copying: $0) }]
            for (index, run) in eventRuns.runs(of: session.id, events, as: .json).enumerated() {
                if index > 0 { pieces.append(JSONWriter.eventSeparator) }
                pieces.append(run)
            }
            pieces.append(JSONWriter.eventsEnd)
            assert(pieces.flatMap(\.bytes) == writer.bytes, "the events answer in runs is not the one written whole")
        }
        guard let sessionJSON else { return .json(pieces + [JSONWriter.sessionTail], revision: session.revision) }
        return .json(
            pieces + [JSONWriter.sessionKey, sessionJSON.json(for: session), JSONWriter.sessionTail], revision: session.revision)
    }

    /// The bytes of events past which an answer (or a resumed stream's backlog) sends them in
    /// runs shared by revision rather than written into it. Below it the kernel's socket
    /// buffer takes the whole answer at once, so sharing it would save nothing, and one block
    /// is one send where runs cost a lookup under one lock, a run a revision and more pieces.
    static let sharedEventsFrom = 64 << 10

    private static func statusResponse(_ outcome: PresentationOutcome, _ session: Session) -> HTTPResponse {
        var writer = JSONWriter(capacity: 256)
        writer.write(status: outcome, emitted: session.lastEmitted(by: outcome.id))
        return .json(writer.bytes, revision: session.revision)
    }
}
