import SessionChecks
import Testing

/// The operation-sequence fuzz target's inputs, replayed through its check on every `make test`.
@Suite("Fuzz inputs: operation sequences")
struct SessionReplayTests {
    @Test("Every seed and every fixed crasher passes the sequence check", arguments: FuzzInputs.files(of: "sessions"))
    func replay(_ name: String) throws {
        do {
            try StepSequenceCheck.run(try FuzzInputs.bytes(name))
        } catch let violation as Violation {
            Issue.record("\(name): \(violation)")
        }
    }

    @Test("The seeds change the session, and some of their steps are refused")
    func seedsReachTheDomain() throws {
        let files = FuzzInputs.files(of: "sessions").filter { $0.hasPrefix("Corpus/") }
        #expect(files.count >= 4)
        var batches = 0
        var applied = 0
        for name in files {
            let report = try StepSequenceCheck.run(try FuzzInputs.bytes(name))
            batches += report.batches
            applied += report.applied
        }
        #expect(applied > 0 && applied < batches, "\(applied) of \(batches) batches applied")
    }

    @Test("Any bytes decode to steps the check accepts: a sweep of seeded random inputs", arguments: 0..<4)
    func randomBytes(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed))
        for _ in 0..<200 {
            let bytes = (0..<256).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            try StepSequenceCheck.run(bytes)
        }
    }
}
