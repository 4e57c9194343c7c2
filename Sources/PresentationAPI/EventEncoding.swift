import JSON
import MicroHTTP
import Presentation

/// Events on the wire (docs/api.md, "Events"): as JSON, and framed for Server-Sent Events.
extension JSONWriter {
    mutating func write(event: Event) {
        beginObject()
        key("revision")
        writeInt(event.revision)
        key("type")
        writeString(event.kind.name)
        key("time")
        writeTimestamp(event.time)
        switch event.kind {
        case .pushed(let screen, let stack):
            member("stack", stack.rawValue)
            member("screen", screen.rawValue)
        case .popped(let screens, let stack):
            member("stack", stack.rawValue)
            key("screens")
            beginArray()
            for screen in screens { writeString(screen.rawValue) }
            endArray()
        case .replaced(let old, let new, let stack):
            member("stack", stack.rawValue)
            member("screen", new.rawValue)
            member("replaced", old.rawValue)
        case .presented(let presentation, let style, let by, let stack, let screen):
            member("presentation", presentation.rawValue)
            member("style", style.rawValue)
            member("presentedBy", by.rawValue)
            key("stack")
            writeOptional(stack?.rawValue)
            key("screen")
            writeOptional(screen?.rawValue)
        case .dismissed(let presentation, let by), .cancelled(let presentation, let by):
            member("presentation", presentation.rawValue)
            member("presentedBy", by.rawValue)
        case .result(let screen, let source, let value):
            member("screen", screen.rawValue)
            member("from", source.rawValue)
            key("value")
            write(value)
        case .rootSet(let screen, let stack):
            member("stack", stack.rawValue)
            member("screen", screen.rawValue)
        case .stateSet(let screen, let state, let transition):
            member("screen", screen.rawValue)
            key("state")
            write(state: state)
            member("transition", transition.rawValue)
        }
        endObject()
    }

    /// `{"revision": N, "events": [...]}`, the answer of `GET …/events`; with `"session"` after
    /// the events when asked (the session's JSON as `GET /v1/sessions/{id}` answers it), sent
    /// from the cache after `writeOpening`. A large one is sent in runs
    /// (`PresentationAPI.eventsResponse`).
    mutating func write(events: [Event], revision: Int) {
        writeOpening(events: events, revision: revision)
        endObject()
    }

    /// `{"revision": N, "events": [...]`: an events answer up to where its session would go.
    mutating func writeOpening(events: [Event], revision: Int) {
        writeRunsHead(revision: revision)
        for event in events { write(event: event) }
        endArray()
    }

    /// `{"revision": N, "events": [`: what comes before the first event.
    mutating func writeRunsHead(revision: Int) {
        beginObject()
        key("revision")
        writeInt(revision)
        key("events")
        beginArray()
    }

    /// What closes an events answer after the session's JSON.
    static let sessionTail = shared("}")
    /// What opens the session after the events (`writeOpening`).
    static let sessionKey = shared(#","session":"#)
    /// What goes between two revisions' events in an answer (`EventRuns`).
    static let eventSeparator = shared(",")
    /// What closes an events answer's array.
    static let eventsEnd = shared("]")

    private static func shared(_ text: String) -> SharedBytes {
        Array(text.utf8).withUnsafeBufferPointer { SharedBytes(copying: $0) }
    }

    private mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        writeString(value)
    }
}

/// Server-Sent Events framing: one message per event, `id:` the revision.
enum EventStreamFrame {
    /// One event; `id:` only when `closesRevision`, see `messages(for:)`.
    static func message(for event: Event, closesRevision: Bool = true) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.write(event: event)
        var frame = Array((closesRevision ? "id: \(event.revision)\ndata: " : "data: ").utf8)
        frame.append(contentsOf: writer.bytes)
        frame.append(contentsOf: "\n\n".utf8)
        return frame
    }

    /// One request's events share a revision; only the last of them carries `id:`. A client
    /// cut off halfway through a revision then resumes (`Last-Event-ID`) from the revision
    /// before and gets all of it again, rather than losing the rest of it.
    static func messages(for events: [Event]) -> [UInt8] {
        var frames: [UInt8] = []
        for (index, event) in events.enumerated() {
            let closes = index == events.count - 1 || events[index + 1].revision != event.revision
            frames.append(contentsOf: message(for: event, closesRevision: closes))
        }
        return frames
    }

    /// The first bytes of a stream: how long EventSource should wait before reconnecting.
    static let opening = Array("retry: 2000\n\n".utf8)
    static let keepAlive = Array(": keep-alive\n\n".utf8)

    /// The session as it stands at `revision` (its JSON, which holds no line breaks), the last
    /// message of that revision's when a stream includes the session: it carries the `id:`.
    static func session(_ json: [UInt8], revision: Int) -> [UInt8] {
        var frame = Array("id: \(revision)\nevent: session\ndata: ".utf8)
        frame.reserveCapacity(frame.count + json.count + 2)
        frame.append(contentsOf: json)
        frame.append(contentsOf: "\n\n".utf8)
        return frame
    }

    static func named(_ name: String, revision: Int) -> [UInt8] {
        Array("event: \(name)\ndata: {\"revision\":\(revision)}\n\n".utf8)
    }

    /// The stream fell behind the kept history: events through `revision` were skipped. It
    /// carries the revision as its id, so that a client reconnecting after it (EventSource
    /// sends the last id it saw as `Last-Event-ID`) resumes there; with the id of the last
    /// event before it, the reconnection asked for dropped events and got 410 for good.
    static func reset(revision: Int) -> [UInt8] {
        Array("id: \(revision)\n".utf8) + named("reset", revision: revision)
    }
}
