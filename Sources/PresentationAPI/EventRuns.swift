import MicroHTTP
import Presentation
import Synchronization

/// Each revision's events as a stream sends them, by session and revision, so that every
/// stream resuming over a revision sends the same bytes rather than a copy each.
///
/// A stream that resumes (`Last-Event-ID`) is sent every revision it missed at once, up to a
/// whole kept history (`--max-session-bytes` of it), and holds them until its client has read
/// them. Written as one message for each stream, fifty streams that resumed a 4 MB history and
/// never read held fifty copies, 215 MB. A revision's events never change, so their messages are
/// the same for every stream, whatever revision each resumes from; by revision, not by the span a
/// stream asks for, so that streams resuming from different revisions share them too. Held
/// weakly, as `ExportDocuments` holds its documents: a revision's run is kept only while some
/// stream still has it queued, so an idle session costs nothing here.
final class EventRuns: Sendable {
    private struct Key: Hashable {
        let session: SessionID
        let revision: Int
    }

    private struct Entry {
        weak var run: SharedBytes?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The count at which entries whose run is gone are dropped; doubles with the live
        /// ones, so that dropping them costs O(1) a run, amortised.
        var sweepAt = State.minimumSweep
        static let minimumSweep = 256
    }

    private let state = Mutex(State())

    /// `events` (of `session`, oldest first) as one run for each revision among them: the one
    /// a stream still holds, if any, else `write`'s of that revision's events.
    func runs(of session: SessionID, _ events: [Event], write: ([Event]) -> [UInt8]) -> [SharedBytes] {
        var spans: [(key: Key, events: ArraySlice<Event>)] = []
        var start = events.startIndex
        for index in events.indices
        where index == events.endIndex - 1 || events[index + 1].revision != events[index].revision {
            spans.append((Key(session: session, revision: events[index].revision), events[start...index]))
            start = index + 1
        }
        var runs = state.withLock { state in spans.map { state.entries[$0.key]?.run } }
        // Written outside the lock: a revision may hold a megabyte of states and results.
        var written: [(index: Int, run: SharedBytes)] = []
        for (index, span) in spans.enumerated() where runs[index] == nil {
            written.append(
                (index, write(Array(span.events)).withUnsafeBufferPointer { SharedBytes(copying: $0) }))
        }
        if !written.isEmpty {
            state.withLock { state in
                // Another stream may have written a revision meanwhile: the first kept is sent by both.
                for (index, run) in written {
                    let key = spans[index].key
                    if let other = state.entries[key]?.run {
                        runs[index] = other
                    } else {
                        state.entries[key] = Entry(run: run)
                        runs[index] = run
                    }
                }
                if state.entries.count >= state.sweepAt {
                    state.entries = state.entries.filter { $0.value.run != nil }
                    state.sweepAt = max(State.minimumSweep, state.entries.count * 2)
                }
            }
        }
        // Every revision has its run by now.
        return runs.compactMap { $0 }
    }

    /// The revisions with an entry, live or not: for tests of the sweep.
    var entryCount: Int { state.withLock { $0.entries.count } }
}
