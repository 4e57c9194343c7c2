import SessionChecks

/// libFuzzer calls this with each input: the steps it decodes to must keep every promise
/// `StepSequenceCheck` checks. A broken promise traps, so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try StepSequenceCheck.run(bytes)
    } catch {
        fatalError("sequence check: \(error)")
    }
    return 0
}
