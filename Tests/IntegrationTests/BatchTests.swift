import Presentation
import Testing

/// `POST …/batch`: several operations, all or nothing, as one revision.
@Suite("Batches")
struct BatchTests {
    @Test("A batch applies every operation in order as one revision")
    func oneRevision() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let operations: [[String: Any]] = [
                ["op": "push", "screen": "a"],
                ["op": "push", "screen": "b"],
                ["op": "present", "screen": "c", "style": "sheet"],
                ["op": "push", "screen": "d", "from": "s7"],
            ]
            let json = try client.post("batch", to: session, json: ["operations": operations]).expectSession(
                revision: 2)
            let presented = Wire.presentation(
                "p5", style: "sheet", presentedBy: "s4",
                stack: Wire.stack("k6", [Wire.screen("s7", "c"), Wire.screen("s8", "d")]))
            let root = Wire.stack(
                "k1", [Wire.screen("s2", "inbox"), Wire.screen("s3", "a"), Wire.screen("s4", "b")],
                presentation: presented)
            #expect(JSONText.canonical(json["root"]) == JSONText.canonical(root))
            #expect(
                JSONText.canonical(json["top"])
                    == JSONText.canonical(Wire.top(stack: "k6", screen: "s8", presentation: "p5")))
            let events = try client.events(of: session, after: 1)
            #expect(events.map { $0.string("type") } == ["pushed", "pushed", "presented", "pushed"])
            #expect(events.allSatisfy { $0.int("revision") == 2 })
        }
    }

    @Test("A failing operation applies nothing and its problem names its index")
    func allOrNothing() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let operations: [[String: Any]] = [["op": "push", "screen": "a"], ["op": "pop-to", "screen": "s99"]]
            let problem = try client.post("batch", to: session, json: ["operations": operations]).expectProblem(
                404, "screen_not_found")
            #expect(problem.int("operation") == 1)
            #expect(try client.snapshot(of: session) == before)
            // Not even an id was spent: the next screen is still s3.
            #expect(
                try client.post("push", to: session, json: ["screen": "a"]).expectSession(revision: 2).rootPathIDs == [
                    "s2", "s3",
                ])
        }
    }

    @Test("A conflict late in a batch rolls back the operations before it")
    func conflictRollsBack() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let operations: [[String: Any]] = [["op": "push", "screen": "a"], ["op": "pop"], ["op": "pop"]]
            let problem = try client.post("batch", to: session, json: ["operations": operations]).expectProblem(
                409, "cannot_pop_root")
            #expect(problem.int("operation") == 2)
            let guarded: [[String: Any]] = [["op": "push", "screen": "a", "from": "s2"], ["op": "pop", "from": "s2"]]
            let stale = try client.post("batch", to: session, json: ["operations": guarded]).expectProblem(
                409, "top_changed")
            #expect(stale.int("operation") == 1)
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("A malformed operation is refused with a pointer into the batch and its index")
    func malformedOperation() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let missing: [[String: Any]] = [["op": "push", "screen": "a"], ["op": "push"]]
            let problem = try client.post("batch", to: session, json: ["operations": missing]).expectProblem(
                422, "missing_field")
            #expect(problem.string("pointer") == "/operations/1/screen")
            #expect(problem.int("operation") == 1)
            let unknown = try client.post("batch", to: session, json: ["operations": [["op": "jump"]]])
            #expect(unknown.expectProblem(422, "invalid_field").string("pointer") == "/operations/0/op")
            let extra = try client.post("batch", to: session, json: ["operations": [["op": "pop", "colour": "red"]]])
            #expect(extra.expectProblem(422, "unknown_field").string("pointer") == "/operations/0/colour")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("An empty batch is 422 empty_batch")
    func emptyBatch() throws {
        try withServer { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            try client.post("batch", to: session, json: ["operations": [] as [Any]]).expectProblem(422, "empty_batch")
            #expect(try client.snapshot(of: session) == before)
        }
    }

    @Test("A batch past the limit is 422 batch_too_large with the limit")
    func batchTooLarge() throws {
        try withServer(limits: Limits(maxBatchSteps: 3)) { server in
            let client = try server.connect()
            let session = try client.createSession()
            let before = try client.snapshot(of: session)
            let operations = (0..<4).map { ["op": "push", "screen": "s\($0)"] }
            let problem = try client.post("batch", to: session, json: ["operations": operations]).expectProblem(
                422, "batch_too_large")
            #expect(problem.int("limit") == 3)
            #expect(try client.snapshot(of: session) == before)
            try client.post("batch", to: session, json: ["operations": Array(operations.prefix(3))]).expectSession(
                revision: 2)
        }
    }
}
