import JSON
import Presentation

/// Where a session's JSON keeps what a push or a pop on its topmost stack changes, so that the
/// next revision's JSON can be made from this one's bytes instead of from the whole tree.
///
/// A change's answer is the whole session; written from the tree, it was a quarter of a
/// push/pop's instructions (docs/performance.md, item 38). A push or a pop changes the
/// session's first members and one end of one array, and leaves the rest byte for byte.
struct TreeLayout: Sendable {
    /// Offset of the root stack's `{`, right after `"root":`.
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
            switch steps[0].operation {
            case .push: self = .pushed
            case .pop(result: nil): self = .popped
            default: return nil
            }
        }
    }

    /// The JSON of `session` and its layout, made from `previous` (the JSON of the revision
    /// before, laid out as this says) and the one edit that led from it to `session`; nil
    /// when this layout cannot take the edit.
    func applying(_ edit: Edit, to previous: [UInt8], for session: Session) -> ([UInt8], TreeLayout)? {
        let pushed: Screen?
        switch edit {
        case .pushed:
            guard let screen = session.screen(session.top.screen) else { return nil }
            pushed = screen
        case .popped:
            guard screenStarts.count > 1 else { return nil }
            pushed = nil
        }
        // Asked once: comparing a `Screen?` with nil copies and destroys it (several times a
        // change, measured), since `Screen` is Equatable.
        let isPush = edit == .pushed
        // Everything of the tree up to where the path changes, and from its `]` to the end.
        let keptUntil = isPush ? pathEnd : screenStarts[screenStarts.count - 1]
        // What is new (the session's first members, and the pushed screen after its comma) is
        // written apart, then the answer is assembled in one array of its exact size: a writer
        // the size of the whole answer, copied out at the end, was two large allocations.
        var fresh = JSONWriter(capacity: 512)
        fresh.writeHead(of: session)
        let headCount = fresh.written
        if let pushed {
            // The comma by hand: the writer stands after `"root":`, and takes this screen
            // for that member's value.
            withUnsafeBytes(of: UInt8(ascii: ",")) { fresh.appendVerbatim($0.bindMemory(to: UInt8.self)) }
            fresh.write(screen: pushed)
        }
        let shift = headCount - treeStart
        var layout = TreeLayout(treeStart: headCount, screenStarts: [], pathEnd: 0)
        layout.screenStarts.reserveCapacity(screenStarts.count + 1)
        for start in screenStarts.prefix(isPush ? screenStarts.count : screenStarts.count - 1) {
            layout.screenStarts.append(start + shift)
        }
        if isPush { layout.screenStarts.append(keptUntil + shift) }
        layout.pathEnd = keptUntil + shift + (fresh.written - headCount)
        let total = layout.pathEnd + (previous.count - pathEnd)
        let bytes = previous.withUnsafeBufferPointer { previous in
            fresh.withWrittenBytes { fresh in
                [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                    func append(_ part: UnsafeBufferPointer<UInt8>) {
                        initialized += UnsafeMutableBufferPointer(rebasing: buffer[initialized...]).initialize(fromContentsOf: part)
                    }
                    append(UnsafeBufferPointer(rebasing: fresh[..<headCount]))
                    append(UnsafeBufferPointer(rebasing: previous[treeStart..<keptUntil]))
                    append(UnsafeBufferPointer(rebasing: fresh[headCount...]))
                    append(UnsafeBufferPointer(rebasing: previous[pathEnd...]))
                }
            }
        }
        return (bytes, layout)
    }
}
