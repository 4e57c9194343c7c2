import Foundation
import JSON
import MicroHTTP
import Presentation
import SessionChecks
import Testing

@testable import PresentationAPI

import enum Presentation.Operation

/// `TreeLayout` takes exactly the edits it claims, each giving the bytes written whole, and
/// declines the rest; the cache's tests check the same through `SessionJSONCache`.
@Suite("Tree layout edits")
struct TreeLayoutTests {
    /// A session's JSON written whole, in a block with room either side as the cache keeps it.
    static func written(_ session: Session) -> (json: SharedBytes, layout: TreeLayout) {
        var writer = JSONWriter()
        var layout = TreeLayout()
        writer.write(session: session, layout: &layout)
        let json = writer.withWrittenBytes { SharedBytes(copying: $0, headroom: 32, tailroom: 256) }
        layout.shift(by: 32)
        return (json, layout)
    }

    /// The ids of the open presentations, the root stack's first.
    static func openPresentations(_ session: Session) -> [PresentationID] {
        var ids: [PresentationID] = []
        var presentation = session.root.presentation
        while let open = presentation {
            ids.append(open.id)
            if case .stack(let stack, _) = open.content { presentation = stack.presentation } else { presentation = nil }
        }
        return ids
    }

    static let alert = try! PresentationRequest(
        style: .alert,
        content: .alert(try Alert(title: "Delete?", actions: [AlertAction(id: "ok", title: "OK"), AlertAction(id: "no", title: "No", role: .cancel)])))

    @Test("Pushes, pops, presents and dismisses of the topmost presentation, with results or not, over 4,000 random steps, give the written bytes")
    func presentsAndDismisses() throws {
        var session = SessionJSONCacheTests.session()
        var (json, layout) = Self.written(session)
        // A fixed sequence, so that a failure repeats.
        var random = SplitMix64(state: 0x9E37_79B9_7F4A_7C15)
        func next(_ bound: Int) -> Int { random.int(0..<bound) }
        var made: [String: Int] = [:]
        var declined = 0
        for _ in 0..<4_000 {
            let open = Self.openPresentations(session)
            let spec = try ScreenSpec(name: "screen\(next(5))", params: .object([JSONMember("n", .number("\(next(100))"))]))
            let operation: Operation =
                switch next(13) {
                case 0, 1: .push(spec)
                case 2: .pop(result: nil)
                case 3, 4:
                    .present(try PresentationRequest(style: next(2) == 0 ? .sheet : .fullScreen, content: .screen(spec, navigation: next(2) == 0)))
                case 5: .present(Self.alert)
                case 6, 7: .dismiss(presentation: nil, result: nil)
                case 8: .dismiss(presentation: open.isEmpty ? nil : open[next(open.count)], result: next(2) == 0 ? nil : .string("named"))
                case 9: .dismiss(presentation: nil, result: .string("done \(next(1_000))"))
                case 10: .pop(result: .number("\(next(1_000))"))
                case 11: .dismiss(presentation: nil, result: .object([JSONMember("action", .string("ok"))]))
                default: .replace(spec)
                }
            guard (try? session.apply(Step(operation: operation), at: Date(), limits: .default)) != nil else { continue }
            guard let edit = TreeLayout.Edit(Step(operation: operation)) else {
                (json, layout) = Self.written(session)
                continue
            }
            // What must be declined: a dismiss that closed presentations under the topmost too.
            let closedMore = if case .dismiss(let id?, _) = operation { id != open.last } else { false }
            let applied = layout.apply(edit, to: json, for: session)
            #expect(applied == !closedMore, "\(operation) with \(open.count) open")
            if applied {
                #expect(json.bytes == Self.written(session).json.bytes, "after \(operation)")
                let kind =
                    switch edit {
                    case .pushed: "pushed"
                    case .popped: "popped"
                    case .presented: "presented"
                    case .dismissed: "dismissed"
                    }
                made[kind, default: 0] += 1
                if edit.handsBack { made["handing back", default: 0] += 1 }
            } else {
                declined += 1
                (json, layout) = Self.written(session)
            }
        }
        for kind in ["pushed", "popped", "presented", "dismissed", "handing back"] {
            #expect(made[kind, default: 0] > 100, "\(kind): \(made)")
        }
        #expect(declined > 10)
    }

    @Test("A layout that does not match the bytes declines a present and a dismiss rather than write in the wrong place")
    func mismatchedBytesDecline() throws {
        var session = SessionJSONCacheTests.session()
        let before = Self.written(session)
        let step = Step(operation: .present(try PresentationRequest(style: .sheet, content: .screen(try ScreenSpec(name: "s"), navigation: true))))
        _ = try session.apply(step, at: Date(), limits: .default)
        // The path's end moved by one byte: the `presentation` key is not where the layout says.
        var wrong = before.layout
        wrong.paths[wrong.paths.count - 1].end -= 1
        let presented = wrong.apply(.presented, to: SharedBytes(copying: before.json), for: session)
        #expect(!presented)

        // A dismiss whose layout believes in one presentation more than the bytes hold.
        var (json, layout) = Self.written(session)
        layout.paths.append(layout.paths[layout.paths.count - 1])
        _ = try session.apply(Step(operation: .dismiss(presentation: nil, result: nil)), at: Date(), limits: .default)
        let dismissed = layout.apply(.dismissed(handsBack: false), to: json, for: session)
        #expect(!dismissed)
    }
}
