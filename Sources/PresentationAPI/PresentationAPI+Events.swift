import MicroHTTP
import Presentation

/// Reading what happened: the event history, live streams and presentation outcomes.
extension PresentationAPI {
    func events(_ rawID: String, _ request: HTTPRequest) throws -> HTTPReply {
        let session = try authorizedSession(rawID, request, allowQueryToken: true)
        let after = try integerQuery("after", request, in: 0...Int.max)
        if request.headers["Accept"]?.lowercased().contains("text/event-stream") == true {
            return .now(try eventStream(session, after: after, request))
        }
        let wait = try integerQuery("wait", request, in: 0...configuration.maxWaitSeconds) ?? 0
        let start: Int
        let backlog: [Event]
        if let after {
            start = after
            backlog = try session.events(after: after)
        } else {
            (start, backlog) = try Self.keptEvents(of: session)
        }
        guard backlog.isEmpty, wait > 0 else { return .now(Self.eventsResponse(backlog, session)) }
        return SessionWaiter.wait(
            for: session.id, in: store, seconds: wait,
            ready: { session in
                guard let events = try? session.events(after: start), !events.isEmpty else { return nil }
                return Self.eventsResponse(events, session)
            },
            timeout: { session in Self.eventsResponse([], session) })
    }

    func presentationStatus(_ rawID: String, _ rawPresentation: String, _ request: HTTPRequest) throws -> HTTPReply {
        let session = try authorizedSession(rawID, request)
        // An id too long to be one of ours names nothing here.
        guard let presentation = PresentationID(rawValue: rawPresentation) else {
            throw APIError.routeNotFound(request.path)
        }
        let wait = try integerQuery("wait", request, in: 0...configuration.maxWaitSeconds) ?? 0
        let outcome = try session.outcome(of: presentation)
        guard outcome.status == .presented, wait > 0 else { return .now(Self.outcomeResponse(outcome, session)) }
        return SessionWaiter.wait(
            for: session.id, in: store, seconds: wait,
            ready: { session in
                guard let outcome = try? session.outcome(of: presentation), outcome.status != .presented else { return nil }
                return Self.outcomeResponse(outcome, session)
            },
            timeout: { session in
                (try? session.outcome(of: presentation)).map { Self.outcomeResponse($0, session) }
                    ?? ProblemDetails(for: PresentationError.presentationNotFound(presentation)).response
            })
    }

    /// Server-Sent Events from `Last-Event-ID`, else `after`, else now.
    private func eventStream(_ session: Session, after: Int?, _ request: HTTPRequest) throws -> HTTPResponse {
        var start = after ?? session.revision
        if let lastEventID = request.headers["Last-Event-ID"] {
            guard let revision = Int(lastEventID.trimmingSpaces), revision >= 0 else {
                throw APIError.invalidHeader(name: "Last-Event-ID", reason: "expected a revision")
            }
            start = revision
        }
        let backlog = try session.events(after: start)
        let stream = HTTPStream()
        stream.send(EventStreamFrame.opening + EventStreamFrame.messages(for: backlog))
        let subscriber = EventSubscriber(id: session.id, store: store, stream: stream, after: session.revision)
        guard let watch = store.watch(session.id, { change in subscriber.handle(change) }) else {
            throw PresentationError.sessionNotFound
        }
        heartbeat.add(stream)
        let heartbeat = heartbeat
        stream.onClose {
            watch.cancel()
            heartbeat.remove(stream)
        }
        // Anything that changed between the snapshot and the watch goes out now.
        subscriber.pump()
        let headers: HTTPHeaders = [
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        ]
        return HTTPResponse(status: .ok, headers: headers, body: .stream(stream))
    }

    /// Every kept event: history may have been trimmed, so start at the oldest kept.
    private static func keptEvents(of session: Session) throws -> (Int, [Event]) {
        do {
            return (0, try session.events(after: 0))
        } catch PresentationError.historyExpired(let oldest) {
            return (oldest, try session.events(after: oldest))
        }
    }

    private static func eventsResponse(_ events: [Event], _ session: Session) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(events: events, revision: session.revision)
        return .json(writer.bytes, revision: session.revision)
    }

    private static func outcomeResponse(_ outcome: PresentationOutcome, _ session: Session) -> HTTPResponse {
        var writer = JSONWriter(capacity: 256)
        writer.write(outcome: outcome)
        return .json(writer.bytes, revision: session.revision)
    }
}
