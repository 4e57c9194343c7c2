import JSON
import MicroHTTP
import Presentation

/// Where a session's JSON keeps what a push, a pop, a present or a dismiss on its topmost
/// stack changes, so that the next revision's JSON can be made from this one's bytes instead
/// of from the whole tree.
///
/// A change's answer is the whole session; written from the tree, it was a quarter of a
/// push/pop's instructions (docs/performance.md, item 38), and a quarter of a present's
/// (item 89). Such a change rewrites the session's first members and one end of the tree:
/// the topmost stack's path closes the tree but for its `presentation` and a few brackets, so
/// a screen goes in or out at the path's end, a presentation in or out where the topmost
/// stack's (or the one below's) `presentation` is, and the rest stays byte for byte.
struct TreeLayout: Sendable {
    /// Where one stack's path lies.
    struct Path: Sendable {
        /// Offsets where the screens start, bottom first: the first screen's `{`, then each
        /// later one's comma.
        var screenStarts: [Int] = []
        /// Offset of the `]` that closes the path; the stack's `presentation` follows it.
        var end = 0

        mutating func shift(by shift: Int) {
            for index in screenStarts.indices { screenStarts[index] += shift }
            end += shift
        }
    }

    /// Offset of the root stack's `{`, right after `"root":`: where the head, which every
    /// revision writes afresh, ends and the tree begins.
    var treeStart = 0
    /// The stacks' paths from the root stack's up, one more for each presentation holding a
    /// stack: the last is the topmost stack's.
    var paths: [Path] = []
    /// Whether an alert is open over the topmost stack (its `presentation` is not `null`).
    var alertOpen = false

    /// The topmost stack's path's index in `paths`.
    private var top: Int { paths.count - 1 }

    /// What one step did to the end of the tree, when that is all it did.
    enum Edit: Sendable {
        /// `push`: a screen on top.
        case pushed
        /// `pop`: the top screen gone, and the one uncovered rewritten when it was handed a result.
        case popped(handsBack: Bool)
        /// `present`: a stack or an alert over the top screen.
        case presented
        /// `dismiss`: the topmost presentation gone, and the screen that presented it (the top of
        /// the stack under it) rewritten when it was handed a result. A dismiss naming a
        /// presentation further down closes more; `apply` checks the session and declines then.
        case dismissed(handsBack: Bool)

        /// The edit `steps` make, when they are a single step that makes one.
        init?(_ steps: [Step]) {
            guard steps.count == 1 else { return nil }
            self.init(steps[0])
        }

        /// The edit `step` makes, if any.
        init?(_ step: borrowing Step) {
            switch step.operation {
            case .push: self = .pushed
            // Matched against nil rather than bound: binding copied the step's operation (about
            // 130 instructions a push/pop).
            case .pop(result: nil): self = .popped(handsBack: false)
            case .pop: self = .popped(handsBack: true)
            case .present: self = .presented
            case .dismiss(_, result: nil): self = .dismissed(handsBack: false)
            case .dismiss: self = .dismissed(handsBack: true)
            default: return nil
            }
        }

        /// Whether the screen on top afterwards was handed a result, and so is written anew.
        var handsBack: Bool {
            switch self {
            case .popped(let handsBack), .dismissed(let handsBack): handsBack
            case .pushed, .presented: false
            }
        }
    }

    /// Moves every offset by `shift`, in place: for the JSON copied into a block at `shift`
    /// from its start (`SharedBytes` with room before it).
    mutating func shift(by shift: Int) {
        treeStart += shift
        for index in paths.indices { paths[index].shift(by: shift) }
    }

    /// Makes `json` (a session's JSON as `JSONWriter.write(session:)` writes it with no
    /// extras, laid out as this says, offsets being its indices) the JSON of `session`, the
    /// revision the edit led to, in place, and notes where its paths now lie; false when this
    /// layout cannot take the edit, and `json` is then left part-made. The caller holds the
    /// only reference to `json`: no response is sending it.
    ///
    /// The head ends where the tree starts, so it is written afresh in the room before the
    /// tree. The answer costs the head's and the new screen's or presentation's bytes (and
    /// those of the screen a result went to), not a copy of the whole.
    mutating func apply(_ edit: Edit, to json: SharedBytes, for session: Session) -> Bool {
        // On the stack: both are copied into `json` before this returns.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { apply(edit, to: json, for: session, scratch: $0) }
    }

    private mutating func apply(
        _ edit: Edit, to json: SharedBytes, for session: Session, scratch: UnsafeMutableBufferPointer<UInt8>
    ) -> Bool {
        // One writer for what goes into the tree and then the head, each a value of its own.
        var fresh = JSONWriter(scratch: scratch)
        let edited =
            switch edit {
            case .pushed: push(session, into: json, with: &fresh)
            case .popped: pop(json)
            case .presented: present(session, into: json, with: &fresh)
            case .dismissed: dismiss(json)
            }
        // A dismiss naming a presentation under the topmost closed more than this layout did.
        guard edited, paths.count - 1 + (alertOpen ? 1 : 0) == session.presentationCount else { return false }
        if edit.handsBack, !rewriteTopScreen(of: session, in: json, with: &fresh) { return false }
        let headStart = fresh.written
        let reused = json.withUnsafeBytes { whole in
            fresh.writeHead(of: session, after: UnsafeBufferPointer(rebasing: whole[..<(treeStart - json.startIndex)]))
        }
        if !reused { fresh.writeHead(of: session) }
        return fresh.withWrittenBytes { json.replacePrefix(upTo: treeStart, with: UnsafeBufferPointer(rebasing: $0[headStart...])) }
    }

    private mutating func push(_ session: Session, into json: SharedBytes, with fresh: inout JSONWriter) -> Bool {
        guard !alertOpen, !paths.isEmpty else { return false }
        // The comma by hand: a writer on its own takes the screen as its first value.
        withUnsafeBytes(of: UInt8(ascii: ",")) { fresh.appendVerbatim($0.bindMemory(to: UInt8.self)) }
        fresh.write(screen: session.topmostScreen)
        let end = paths[top].end
        fresh.withWrittenBytes { json.replaceSubrange(end..<end, with: $0) }
        paths[top].screenStarts.append(end)
        paths[top].end = end + fresh.written
        return true
    }

    private mutating func pop(_ json: SharedBytes) -> Bool {
        guard !alertOpen, let path = paths.last, path.screenStarts.count > 1, let last = path.screenStarts.last else {
            return false
        }
        json.replaceSubrange(last..<path.end, with: UnsafeBufferPointer(start: nil, count: 0))
        paths[top].screenStarts.removeLast()
        paths[top].end = last
        return true
    }

    /// The topmost path's last screen written anew, once it holds the result this revision
    /// handed it: a result that went anywhere else is for the whole tree to write.
    private mutating func rewriteTopScreen(of session: Session, in json: SharedBytes, with fresh: inout JSONWriter) -> Bool {
        let screen = session.topmostScreen
        guard !alertOpen, screen.result?.revision == session.revision, let path = paths.last,
            let last = path.screenStarts.last
        else { return false }
        let start = fresh.written
        if path.screenStarts.count > 1 {
            withUnsafeBytes(of: UInt8(ascii: ",")) { fresh.appendVerbatim($0.bindMemory(to: UInt8.self)) }
        }
        fresh.write(screen: screen)
        fresh.withWrittenBytes { json.replaceSubrange(last..<path.end, with: UnsafeBufferPointer(rebasing: $0[start...])) }
        paths[top].end = last + fresh.written - start
        return true
    }

    /// The presentation goes where the topmost stack's `null` is; a stack in it is the topmost now.
    private mutating func present(_ session: Session, into json: SharedBytes, with fresh: inout JSONWriter) -> Bool {
        guard !alertOpen, let presentation = session.topmostPresentation, let path = paths.last,
            let start = Self.presentationStart(after: path, in: json), Self.has(Self.null, in: json, at: start)
        else { return false }
        var inner = TreeLayout()
        fresh.write(presentation: presentation, layout: &inner)
        fresh.withWrittenBytes { json.replaceSubrange(start..<(start + Self.null.utf8CodeUnitCount), with: $0) }
        if inner.alertOpen {
            alertOpen = true
        } else if var held = inner.paths.last {
            held.shift(by: start)
            paths.append(held)
        }
        return true
    }

    /// The topmost presentation, from its `{` to the brackets that close the tree, becomes `null`.
    private mutating func dismiss(_ json: SharedBytes) -> Bool {
        // The stack the presentation is on: the topmost under an alert, else the one under it.
        let holderIndex = alertOpen ? top : top - 1
        guard holderIndex >= 0, let start = Self.presentationStart(after: paths[holderIndex], in: json) else {
            return false
        }
        // After it: the `}` of the stack it is on, a `}` and a `}` for each presentation and
        // stack further down, and the session's own.
        let end = json.endIndex - (2 * holderIndex + 2)
        guard start < end else { return false }
        let closed = json.withUnsafeBytes { whole in
            // Indexed loops: through slices and `allSatisfy` each check cost about 450 instructions.
            var index = end - json.startIndex
            while index < whole.count, whole[index] == UInt8(ascii: "}") { index += 1 }
            return index == whole.count && whole[start - json.startIndex] == UInt8(ascii: "{")
        }
        guard closed else { return false }
        Self.null.withUTF8Buffer { json.replaceSubrange(start..<end, with: $0) }
        if alertOpen {
            alertOpen = false
        } else {
            paths.removeLast()
        }
        return true
    }

    private static let null: StaticString = "null"
    /// What comes between a path's `]` and its stack's presentation.
    private static let presentationKey: StaticString = #"],"presentation":"#

    /// Offset of the value of the `presentation` after `path`, nil unless the key is there.
    private static func presentationStart(after path: Path, in json: SharedBytes) -> Int? {
        has(presentationKey, in: json, at: path.end) ? path.end + presentationKey.utf8CodeUnitCount : nil
    }

    private static func has(_ literal: StaticString, in json: SharedBytes, at offset: Int) -> Bool {
        json.withUnsafeBytes { whole in
            let at = offset - json.startIndex
            let count = literal.utf8CodeUnitCount
            guard at >= 0, at + count <= whole.count else { return false }
            let bytes = literal.utf8Start
            for index in 0..<count where whole[at + index] != bytes[index] { return false }
            return true
        }
    }
}
