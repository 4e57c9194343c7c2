import Foundation
import Presentation
import Testing

/// Many clients at once: no lost update, no torn tree, no crossed sessions.
@Suite("Concurrency")
struct ConcurrencyTests {
    /// What one client thread saw.
    struct Tally: Sendable {
        var applied = 0
        var refused = 0
        var unexpected: [String] = []
    }

    @Test("Eight clients pushing and popping one session lose no update and leave a valid tree")
    func oneSessionManyClients() throws {
        // Every change's event is kept (401 of them), so the history can account for each one.
        try withServer(limits: Limits(maxStackLength: 1000, eventsKept: 1000)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let results = Threads.run(8) { thread in
                let connection = try server.connect()
                var tally = Tally()
                for step in 0..<50 {
                    let response =
                        step.isMultiple(of: 2)
                        ? try connection.post("push", to: session, json: ["screen": "t\(thread)-\(step)"])
                        : try connection.post("pop", to: session)
                    if response.status == 200 {
                        tally.applied += 1
                    } else if response.status == 409, (try? response.json().string("code")) == "cannot_pop_root" {
                        tally.refused += 1
                    } else {
                        tally.unexpected.append("\(response.status) \(response.text)")
                    }
                }
                #expect(!connection.isClosed)
                return tally
            }
            let tallies = try results.map { try $0.get() }
            let applied = tallies.map(\.applied).reduce(0, +)
            #expect(tallies.flatMap(\.unexpected).isEmpty, "\(tallies.flatMap(\.unexpected).prefix(3))")
            #expect(applied + tallies.map(\.refused).reduce(0, +) == 400)

            let final = try client.fetch(session)
            #expect(final.int("revision") == 1 + applied)
            let ids = final.rootPathIDs
            #expect(!ids.isEmpty)
            #expect(ids.first == "s2")
            #expect(Set(ids).count == ids.count)
            #expect(final.object("top")?.string("screen") == ids.last)
            #expect(final.object("top")?.string("stack") == "k1")
            let events = try client.events(of: session)
            #expect(events.map { $0.int("revision") ?? 0 } == Array(1...(1 + applied)))
            let pushes = events.count { $0.string("type") == "pushed" }
            let pops = events.count { $0.string("type") == "popped" }
            #expect(ids.count == 1 + pushes - pops)
        }
    }

    @Test("Eight clients each changing their own session never see each other's screens")
    func manySessions() throws {
        try withServer { server in
            let results = Threads.run(8) { thread in
                let connection = try server.connect()
                let session = try connection.createSession(root: ["screen": "root-\(thread)"])
                for step in 1...25 {
                    let response = try connection.post("push", to: session, json: ["screen": "t\(thread)-\(step)"])
                    guard response.status == 200 else {
                        throw ClientError.unexpectedStatus(response.status, body: response.text)
                    }
                }
                let final = try connection.fetch(session)
                return (final.int("revision") ?? -1, final.rootPathNames)
            }
            #expect(results.count == 8)
            for (thread, result) in results.enumerated() {
                let (revision, names) = try result.get()
                #expect(revision == 26)
                #expect(names == ["root-\(thread)"] + (1...25).map { "t\(thread)-\($0)" })
            }
        }
    }

    @Test("Of eight simultaneous taps on back guarded by from, exactly one applies")
    func doubleTaps() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
            let results = Threads.run(8) { _ in
                let response = try server.connect().post("pop", to: session, json: ["from": "s3"])
                return "\(response.status) \((try? response.json().string("code")) ?? "")"
            }
            let answers = try results.map { try $0.get() }.sorted()
            #expect(answers == ["200 "] + Array(repeating: "409 top_changed", count: 7))
            let final = try client.fetch(session)
            #expect(final.int("revision") == 3)
            #expect(final.rootPathIDs == ["s2"])
        }
    }

    @Test("Parked long polls hold no worker thread, and one change wakes them all")
    func parkedLongPolls() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let waiters = try (0..<8).map { _ in try server.connect() }
            for waiter in waiters {
                try waiter.write(
                    "GET", session.route("events?after=1&wait=10"),
                    headers: [("Authorization", "Bearer \(session.token)")])
            }
            #expect(!waiters[7].hasData(within: .milliseconds(200)))
            // The server has two worker threads; eight parked requests must not block this one.
            let started = ContinuousClock.now
            #expect(try client.fetch(session).int("revision") == 1)
            #expect(ContinuousClock.now - started < .seconds(1))
            try client.post("push", to: session, json: ["screen": "news"]).expectSession(revision: 2)
            for waiter in waiters {
                let response = try waiter.readResponse(timeout: .seconds(3))
                #expect(response.status == 200)
                #expect(try response.json().objects("events").map { $0.string("screen") } == ["s3"])
            }
        }
    }
}
