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
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        for _ in 0..<200 {
            let bytes = (0..<256).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try StepSequenceCheck.run(bytes)
        }
    }
}
