import Foundation
import JSON
import Presentation
import Testing

@testable import SessionStorage

import enum Presentation.Operation

/// Temporary data directories and sessions with every kind of state, for storage tests.
enum StorageFixture {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A fresh directory under the system's temporary directory; the caller removes it.
    static func directory() -> String {
        let path = NSTemporaryDirectory() + "session-storage-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The bytes a hex string spells; nil when it is not hex.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return try? stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw CocoaError(.coderInvalidValue)
            }
            return byte
        }
    }

    static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func spec(_ name: String, title: String? = nil, params: JSONValue = .emptyObject) -> ScreenSpec {
        // Fixture names are always valid; a failure here is a broken fixture, not a behaviour under test.
        try! ScreenSpec(name: name, title: title, params: params)
    }

    /// Params that exercise the JSON codec: nesting, spelled numbers, Unicode, every scalar.
    static let params = JSONValue.object([
        JSONMember("id", .number("1.50e3")),
        JSONMember("name", .string("Zoë 🚀 \"quoted\"\n")),
        JSONMember("flags", .array([.bool(true), .bool(false), .null, .number("-0")])),
        JSONMember("nested", .object([JSONMember("deeper", .array([.object([]), .array([])]))])),
    ])

    /// A session that has pushed, popped with a result, had a sheet dismissed with a result,
    /// presentations cancelled by a root change, a screen with a state, an open sheet without navigation holding an
    /// open alert, idempotency replies, and events trimmed to `limits.eventsKept`.
    static func busySession(id: SessionID, limits: Limits = Limits(eventsKept: 12)) throws -> Session {
        var session = Session(id: id, token: SessionToken.random(), root: spec("inbox", title: "Inbox"), now: start)
        var moment = start
        func run(_ operation: Operation) throws {
            moment = moment.addingTimeInterval(1.25)
            _ = try session.apply([Step(operation: operation)], at: moment, limits: limits)
        }
        let alert = try Alert(
            title: "Discard?", message: "It is gone for good",
            actions: [AlertAction(id: "ok", title: "OK", role: .destructive), AlertAction(id: "no", title: "No", role: .cancel)],
            fields: [AlertField(id: "why", placeholder: "Reason", secure: true), AlertField(id: "note")])
        try run(.push(spec("message", params: params)))
        try run(.push(spec("contacts")))
        try run(.pop(result: .object([JSONMember("to", .string("ada@example.com"))])))
        try run(.present(try PresentationRequest(style: .sheet, content: .screen(spec("compose"), navigation: true))))
        try run(.push(spec("attach")))
        try run(.dismiss(presentation: nil, result: .object([JSONMember("sent", .bool(true))])))
        try run(.present(try PresentationRequest(style: .fullScreen, content: .screen(spec("player"), navigation: true))))
        try run(.present(try PresentationRequest(style: .popover, content: .screen(spec("menu"), navigation: true))))
        try run(.setRoot(spec("home", params: params)))
        try run(.push(spec("settings")))
        try run(.setState(screen: nil, state: try ScreenState(name: "signed-in", params: params), transition: .crossfade))
        try run(.present(try PresentationRequest(style: .sheet, content: .screen(spec("about"), navigation: false))))
        try run(.replace(spec("licence")))
        try run(.present(try PresentationRequest(style: .alert, content: .alert(alert))))
        session.replies.record(
            RecordedReply(fingerprint: [1, 2, 3], status: 200, body: Array("{\"ok\":true}".utf8), revision: 5),
            for: "key-1", keeping: 32)
        session.replies.record(
            RecordedReply(fingerprint: [], status: 200, body: [], revision: session.revision), for: "key-2", keeping: 32)
        return session
    }

    static func id(_ number: Int) -> SessionID {
        let digits = String(number)
        return SessionID(rawValue: String(repeating: "B", count: 21 - digits.count) + digits + "A")!
    }

    /// The file in `directory`, on a connection of its own.
    static func connection(_ directory: String) throws -> SQLiteConnection {
        try SQLiteConnection(path: (directory as NSString).appendingPathComponent(SessionDatabase.fileName))
    }

    /// The revisions of the events the file's chunks hold for `id`, oldest first.
    static func storedEventRevisions(of id: SessionID, in directory: String) throws -> [Int] {
        let file = try connection(directory)
        let select = try file.prepare("SELECT body FROM event_chunks WHERE session = ?1 ORDER BY through")
        try select.bind(.text(id.rawValue))
        var revisions: [Int] = []
        while try select.step() {
            revisions += try SessionCodec.unpackChunk(select.blob(0)).map(\.revision)
        }
        return revisions
    }

    /// `session`'s row as a server before checksums wrote it: format 4, which is format 5
    /// without the checksum at its end.
    static func formatFourRow(of session: Session) -> [UInt8] {
        var row = Array(SessionCodec.encode(session).dropLast(RowChecksum.size))
        row[0] = 4
        return row
    }

    /// A session's kept events as records, oldest first: what a decoder is given.
    static func eventRows(of session: Session) -> [[UInt8]] {
        var rows: [[UInt8]] = []
        session.forEachKeptEventRecord(after: .min) { _, record in rows.append(Array(record)) }
        return rows
    }

    /// A session through the stored form and back: its row and its rows of events.
    static func throughStorage(_ session: Session) throws -> (
        id: SessionID, tokenDigest: SessionTokenDigest, snapshot: Session.Snapshot
    ) {
        try SessionCodec.decode(SessionCodec.encode(session), events: eventRows(of: session))
    }

    /// A row written by the server at 7329bed (format 3, before screens had states): inbox
    /// (params `{}`, title "Inbox"), message (params `{"id":7}`) handed "ada" by a popped
    /// contacts screen, and a sheet (compose) over it; token "t" x 43, revision 5.
    static let formatThreeRow =
        "0316424242424242424242424242424242424242424233412080383F974F22964FD6B7AE851B6CCC9180ED4E6FCB2E415BAFCAB6"
        + "D8221392380A000000C0047DC841000080C2047DC8410E026B310202733205696E626F780105496E626F78027B7D00027333076D"
        + "65737361676500087B226964223A377D0100027334040361646108010270350573686565740273330001026B360102733707636F"
        + "6D706F736500027B7D0000000000"

    /// The records of `formatThreeRow`'s events, as that server kept them in its chunks.
    static let formatThreeEvents = [
        "02000000C0047DC84107027332026B31",
        "040000A0C0047DC84100027333026B31",
        "06000040C1047DC84100027334026B31",
        "080000E0C1047DC8410101027334026B31",
        "080000E0C1047DC84106027333000273340403616461",
        "0A000080C2047DC8410302703505736865657402733301026B36",
    ]

    /// The file in `directory` opened again, as a restart does; nil, with the failure recorded,
    /// when it is refused.
    static func reopen(_ directory: String, now: Date = start) -> SessionDatabase.Recovery? {
        do {
            return try SessionDatabase.open(directory: directory, limits: .default, now: now)
        } catch {
            Issue.record("the restart failed: \(error)")
            return nil
        }
    }

    /// A data directory `root/data` whose database file is a symbolic link to one in
    /// `root/volume` (not made): the database kept on another volume.
    static func linkedDatabase(in root: String) throws -> (directory: String, target: String) {
        let elsewhere = root + "/volume", directory = root + "/data"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/" + SessionDatabase.fileName, withDestinationPath: elsewhere + "/" + SessionDatabase.fileName)
        return (directory, elsewhere)
    }

    /// The session `formatOneRow` holds.
    static let formatOneID = SessionID(rawValue: "EnLR32oUuZg038pWehAL_w")!

    /// A database file of schema 1 in `directory` (made if missing), as the previous server left
    /// it: `formatOneRow` alone, last used at `now`.
    static func writeSchemaOneFile(in directory: String, now: Date) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try SQLiteConnection(path: (directory as NSString).appendingPathComponent(SessionDatabase.fileName))
        try old.execute(
            """
            CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL, last_access REAL NOT NULL,
                ttl INTEGER NOT NULL);
            PRAGMA application_id = \(SessionTable.applicationID); PRAGMA user_version = 1;
            INSERT INTO sessions VALUES ('\(formatOneID)', x'\(formatOneRow)', \(now.timeIntervalSince1970), 86400);
            """)
    }

    /// A row written by the server at dc1a168 (format 1, events inline): a root screen with
    /// nested params, then a push with `{}`.
    static let formatOneRow =
        "0116456E4C5233326F55755A6730333870576568414C5F77204E5C117C3AA2DCEB683423C30AB9F7938EBDDEB63AA333BA319CEF"
        + "754BC56BD104453D8F475F5AC8413988AE475F5AC84106026B310202733205696E626F780105496E626F78060306666F6C646572"
        + "0403616C6C016E0306312E35306533066E65737465640601046C6973740503020004095A6FC3AB202271220A0002733306646574"
        + "61696C0006000000000202453D8F475F5AC84107027332026B31043988AE475F5AC84100027333026B310000"
}
