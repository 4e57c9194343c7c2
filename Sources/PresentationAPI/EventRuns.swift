import JSON
import MicroHTTP
import Presentation

/// Each revision's events as answers send them, by session, revision and form, so that every
/// answer sending a revision sends the same bytes rather than a copy each.
///
/// A stream that resumes (`Last-Event-ID`) is sent every revision it missed at once, and a
/// read of the events (`GET …/events?after=N`) every revision after N, up to a whole kept
/// history (`--max-session-bytes` of it), held until the client has read them. Written for each
/// answer, fifty streams that resumed a 4 MB history and never read held fifty copies, 215 MB,
/// and fifty such reads 197 MB. A revision's events never change, so their bytes are the same in
/// every answer, whatever revision each starts after; by revision, not by the span an answer
/// asks for, so that answers starting from different revisions share them too. Held weakly
/// (`SharedRuns`): a revision's run is kept only while some answer still sends it, so an idle
/// session costs nothing here.
final class EventRuns: Sendable {
    /// How a run holds a revision's events.
    enum Form: Hashable {
        /// Server-Sent Events messages (`EventStreamFrame.messages(for:)`).
        case frames
        /// JSON objects separated by commas, as they stand in a read's `events` array.
        case json
    }

    private struct Key: Hashable {
        let session: SessionID
        let revision: Int
        let form: Form
    }

    private let kept = SharedRuns<Key>()

    /// `events` (of `session`, oldest first) as one run for each revision among them, in `form`:
    /// the one an answer still holds, if any, else one written afresh.
    func runs(of session: SessionID, _ events: [Event], as form: Form) -> [SharedBytes] {
        var spans: [(key: Key, events: ArraySlice<Event>)] = []
        var start = events.startIndex
        for index in events.indices
        where index == events.endIndex - 1 || events[index + 1].revision != events[index].revision {
            spans.append((Key(session: session, revision: events[index].revision, form: form), events[start...index]))
            start = index + 1
        }
        var runs = kept.runs(for: spans.map(\.key))
        // Written outside the lock: a revision may hold a megabyte of states and results.
        var written: [(key: Key, run: SharedBytes)] = []
        var writtenAt: [Int] = []
        for (index, span) in spans.enumerated() where runs[index] == nil {
            written.append((span.key, Self.write(Array(span.events), as: form).withUnsafeBufferPointer { SharedBytes(copying: $0) }))
            writtenAt.append(index)
        }
        for (index, run) in zip(writtenAt, kept.keep(written)) { runs[index] = run }
        // Every revision has its run by now.
        return runs.compactMap { $0 }
    }

    private static func write(_ events: [Event], as form: Form) -> [UInt8] {
        switch form {
        case .frames:
            return EventStreamFrame.messages(for: events)
        case .json:
            var writer = JSONWriter()
            writer.beginArray()
            for event in events { writer.write(event: event) }
            writer.endArray()
            return Array(writer.bytes.dropFirst().dropLast())
        }
    }

    /// The revisions with an entry, live or not: for tests of the sweep.
    var entryCount: Int { kept.entryCount }
}
