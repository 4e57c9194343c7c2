import Foundation
import Presentation
import Testing

/// `?include=session` for a session whose JSON is larger than an event stream's buffer (1 MiB),
/// well within the server's limits (ten screens of 120 KB params; a body may be 1 MiB, a stack 64).
@Suite("Events that include a large session")
struct LargeStreamedSessionTests {
    /// A session of ten screens with 120 KB params each, 1.2 MB of JSON, and a client.
    static func largeSession(on server: TestServer) throws -> (HTTPConnection, CreatedSession) {
        let client = try server.connect()
        let session = try client.createSession()
        let blob = String(repeating: "x", count: 120_000)
        for _ in 0..<10 {
            #expect(try client.post("push", to: session, json: ["screen": "big", "params": ["blob": blob]]).status == 200)
        }
        return (client, session)
    }

    @Test("A stream opens with a session past 1 MiB, and follows its next revision")
    func largeSession() throws {
        try withServer { server in
            let (client, session) = try Self.largeSession(on: server)
            let read = try client.get(session.route(), token: session.token)
            #expect(read.status == 200 && read.body.count > 1 << 20, "the session is past 1 MiB, and reads whole")

            let stream = try StreamedSessionTests.stream(server, session, query: "?include=session")
            let opening = try stream.nextEvent()
            #expect(opening.event == "session" && opening.id == "11")
            #expect(Array(opening.data.utf8) == read.body)

            try client.post("pop", to: session).expectSession(revision: 12)
            let next = try stream.nextEvents(2)
            #expect(next.map(\.event) == [nil, "session"])
            #expect(next.last?.id == "12")
        }
    }

    @Test("A reader that stops reading is still cut off once a buffer's worth waits for it")
    func slowReaderCutOff() throws {
        try withServer { server in
            let (client, session) = try Self.largeSession(on: server)
            let stream = try StreamedSessionTests.stream(server, session, query: "?include=session")
            // Twenty revisions of 1.2 MB each while the reader reads nothing: far more than the
            // socket's buffers and the stream's 1 MiB hold.
            for revision in 0..<20 {
                try client.post("set-state", to: session, json: ["state": "s\(revision)"]).expectSession(revision: 12 + revision)
            }
            var sessions = 0
            // Until the end, or a long silence: reading and parsing one 1.2 MB event is slow
            // under a sanitizer, and a 2 s wait, which includes it, gave up before the end came
            // (ASan: `ended` false, with fewer than 21 sessions read).
            while let event = try? stream.nextEvent(timeout: .seconds(10)) {
                if event.event == "session" { sessions += 1 }
            }
            #expect(stream.ended, "the stream was not cut off")
            #expect(sessions < 21, "every revision was buffered for a reader that did not read")
        }
    }
}
