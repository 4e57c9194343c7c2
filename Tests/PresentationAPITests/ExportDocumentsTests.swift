import Foundation
import MicroHTTP
import Presentation
import Testing

@testable import PresentationAPI

@Suite("Export documents being sent")
struct ExportDocumentsTests {
    static func session() -> Session {
        Session(id: SessionID.random(), token: SessionToken.random(), root: try! ScreenSpec(name: "home"), now: Date())
    }

    @Test("Exports of one revision share the document while it is held; a new revision writes afresh")
    func sharedWhileHeld() throws {
        let exports = ExportDocuments()
        var session = Self.session()
        var writes = 0
        let write = { (session: Session) -> SharedBytes in
            writes += 1
            return SessionDocument.write(session)
        }
        let first = exports.document(for: session, write: write)
        let second = exports.document(for: session, write: write)
        #expect(first === second)
        #expect(writes == 1)
        #expect(first.bytes == SessionDocument.write(session).bytes)

        _ = try session.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        let third = exports.document(for: session, write: write)
        #expect(third !== first)
        #expect(writes == 2)
        #expect(third.bytes == SessionDocument.write(session).bytes)
        withExtendedLifetime((first, second, third)) {}
    }

    @Test("A document no response holds any more is written again: nothing is kept for an idle session")
    func notKeptOnceSent() {
        let exports = ExportDocuments()
        let session = Self.session()
        var writes = 0
        let write = { (session: Session) -> SharedBytes in
            writes += 1
            return SessionDocument.write(session)
        }
        weak var gone: SharedBytes?
        do {
            let first = exports.document(for: session, write: write)
            gone = first
        }
        #expect(gone == nil)
        _ = exports.document(for: session, write: write)
        #expect(writes == 2)
    }

    @Test("An older revision's export, written late, leaves a newer one's shared")
    func olderDoesNotReplaceNewer() throws {
        let exports = ExportDocuments()
        let old = Self.session()
        var new = old
        _ = try new.apply([Step(operation: .push(try ScreenSpec(name: "next")))], at: Date(), limits: .default)
        let newer = exports.document(for: new, write: SessionDocument.write)
        _ = exports.document(for: old, write: SessionDocument.write)
        var writes = 0
        let again = exports.document(for: new) { session in
            writes += 1
            return SessionDocument.write(session)
        }
        #expect(again === newer)
        #expect(writes == 0)
    }

    @Test("Entries of sessions whose documents were sent are dropped as exports go on")
    func deadEntriesSwept() {
        let exports = ExportDocuments()
        for _ in 0..<1_000 { _ = exports.document(for: Self.session(), write: SessionDocument.write) }
        #expect(exports.entryCount < 256)
        let held = (0..<100).map { _ in exports.document(for: Self.session(), write: SessionDocument.write) }
        for _ in 0..<1_000 { _ = exports.document(for: Self.session(), write: SessionDocument.write) }
        #expect(exports.entryCount >= 100)
        #expect(exports.entryCount < 512)
        withExtendedLifetime(held) {}
    }
}
