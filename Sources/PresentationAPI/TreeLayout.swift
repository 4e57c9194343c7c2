import JSON
import MicroHTTP
import Presentation

/// Where a session's JSON keeps what a push or a pop on its topmost stack changes, so that the
/// next revision's JSON can be made from this one's bytes instead of from the whole tree.
///
/// A change's answer is the whole session; written from the tree, it was a quarter of a
/// push/pop's instructions (docs/performance.md, item 38). A push or a pop changes the
/// session's first members and one end of one array, and leaves the rest byte for byte.
struct TreeLayout: Sendable {
    /// Offset of the root stack's `{`, right after `"root":`: where the head, which every
    /// revision writes afresh, ends and the tree begins.
    var treeStart = 0
    /// Offsets where the topmost stack's screens start, bottom first: the first screen's `{`,
    /// then each later one's comma.
    var screenStarts: [Int] = []
    /// Offset of the `]` that closes the topmost stack's path.
    var pathEnd = 0

    /// What one step did to the topmost stack, when that is all it did.
    enum Edit: Sendable {
        /// `push`: a screen on top.
        case pushed
        /// `pop` with no result: the top screen gone, the one uncovered untouched.
        case popped

        /// The edit `steps` make, when they are a single push or a single pop with no result.
        init?(_ steps: [Step]) {
            guard steps.count == 1 else { return nil }
            self.init(steps[0])
        }

        /// The edit `step` makes, when it is a push or a pop with no result.
        init?(_ step: Step) {
            switch step.operation {
            case .push: self = .pushed
            case .pop(result: nil): self = .popped
            default: return nil
            }
        }
    }

    /// This layout with every offset moved by `shift`: for the JSON copied into a block at
    /// `shift` from its start (`SharedBytes` with room before it).
    func shifted(by shift: Int) -> TreeLayout {
        TreeLayout(treeStart: treeStart + shift, screenStarts: screenStarts.map { $0 + shift }, pathEnd: pathEnd + shift)
    }

    /// Makes `json` (a session's JSON, laid out as this says, offsets being its indices) the
    /// JSON of `session`, the revision the edit led to, in place, and notes where its path now
    /// lies; false when this layout cannot take the edit, and `json` is then left part-made.
    /// The caller holds the only reference to `json`: no response is sending it.
    ///
    /// The topmost stack's path closes the tree but for a few brackets, and the head ends
    /// where the tree starts: a push or a pop moves those few bytes, the head is written
    /// afresh in the room before the tree, and the rest stays where it is. The answer costs
    /// the head's and the new screen's bytes, not a copy of the whole.
    mutating func apply(_ edit: Edit, to json: SharedBytes, for session: Session) -> Bool {
        // On the stack: both are copied into `json` before this returns.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { apply(edit, to: json, for: session, scratch: $0) }
    }

    private mutating func apply(
        _ edit: Edit, to json: SharedBytes, for session: Session, scratch: UnsafeMutableBufferPointer<UInt8>
    ) -> Bool {
        // One writer for the pushed screen and then the head, each a value of its own.
        var fresh = JSONWriter(scratch: scratch)
        switch edit {
        case .pushed:
            let screen = session.topmostScreen
            // The comma by hand: a writer on its own takes the screen as its first value.
            withUnsafeBytes(of: UInt8(ascii: ",")) { fresh.appendVerbatim($0.bindMemory(to: UInt8.self)) }
            fresh.write(screen: screen)
            fresh.withWrittenBytes { json.replaceSubrange(pathEnd..<pathEnd, with: $0) }
            screenStarts.append(pathEnd)
            pathEnd += fresh.written
        case .popped:
            guard screenStarts.count > 1, let last = screenStarts.last else { return false }
            json.replaceSubrange(last..<pathEnd, with: UnsafeBufferPointer(start: nil, count: 0))
            screenStarts.removeLast()
            pathEnd = last
        }
        let headStart = fresh.written
        let reused = json.withUnsafeBytes { whole in
            fresh.writeHead(of: session, after: UnsafeBufferPointer(rebasing: whole[..<(treeStart - json.startIndex)]))
        }
        if !reused { fresh.writeHead(of: session) }
        return fresh.withWrittenBytes { json.replacePrefix(upTo: treeStart, with: UnsafeBufferPointer(rebasing: $0[headStart...])) }
    }
}
