import Foundation
import Synchronization
import Testing

/// A deletion racing changes of the same session, over the real binary with either storage.
@Suite("Deletion racing changes")
struct DeletionRaceTests {
    @Test("An event stream sends every change answered before the deletion, then deleted", arguments: [false, true])
    func streamSendsEveryChangeBeforeDeleted(durable: Bool) throws {
        let server = try RaceServer(durable: durable, ["--max-stack-length", "1000"])
        let port = server.port
        for round in 0..<10 {
            let session = try server.connect().createSession()
            let streams = try (0..<3).map { _ in
                try EventStream(
                    connection: try HTTPConnection(port: port), path: session.route("events"),
                    headers: [("Authorization", "Bearer \(session.token)")])
            }
            let barrier = Barrier(5)
            let results = Threads.run(5) { thread -> [Int] in
                let client = try HTTPConnection(port: port)
                barrier.wait()
                if thread == 0 {
                    for _ in 0..<round { sched_yield() }
                    let deleted = try client.delete(session.route(), token: session.token)
                    return deleted.status == 204 ? [] : [-deleted.status]
                }
                var answered: [Int] = []
                for step in 0..<30 {
                    let response = try client.post("push", to: session, json: ["screen": "x\(step)"])
                    if response.status == 200, let tag = response.header("ETag") {
                        answered.append(Int(tag.dropFirst().dropLast()) ?? -1)
                    } else if response.status != 404 {
                        answered.append(-response.status)
                    }
                }
                return answered
            }
            let answered = try results.flatMap { try $0.get() }
            #expect(answered.allSatisfy { $0 > 0 }, "refusals other than 404: \(answered.filter { $0 <= 0 })")
            let last = answered.max() ?? 1
            for stream in streams {
                var revisions: [Int] = []
                var end: ServerSentEvent?
                while end == nil {
                    let message = try stream.nextEvent()
                    if message.event == "deleted" {
                        end = message
                    } else {
                        revisions.append(try message.json().int("revision") ?? -1)
                    }
                }
                #expect(stream.waitForEnd())
                #expect(
                    revisions == (last >= 2 ? Array(2...last) : []),
                    "round \(round): the stream ended with \(revisions.suffix(2)), the last change answered was \(last)")
                #expect(try end?.json().int("revision") == last, "the deleted message names another revision")
            }
        }
    }
}
