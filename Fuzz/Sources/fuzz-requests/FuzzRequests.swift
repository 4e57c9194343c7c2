import APIChecks

/// libFuzzer calls this with each input: the requests it decodes to must be answered as
/// `RequestSequenceCheck` promises. A broken promise traps, so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequests(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try RequestSequenceCheck.run(bytes)
    } catch {
        fatalError("request check: \(error)")
    }
    return 0
}
