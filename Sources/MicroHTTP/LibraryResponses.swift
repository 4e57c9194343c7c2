#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CMicroHTTPD

// libmicrohttpd's response objects made from the bodies an HTTPResponse carries: a copy of
// bytes, a shared run, or runs one after another (a stream's is made where it is queued,
// HTTPServer+Callbacks.swift). Ownership: a response made from shared runs retains them as its
// `cls`, released by releaseRun or releaseRuns when libmicrohttpd destroys the response.

/// A libmicrohttpd response holding a copy of `bytes`, with `headers`; the caller destroys it.
func makeResponse(bytes: [UInt8], headers: HTTPHeaders) -> OpaquePointer? {
    let made =
        bytes.isEmpty
        ? MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        : bytes.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
    guard let made else { return nil }
    addHeaders(headers, to: made)
    return made
}

/// A libmicrohttpd response that sends `run` where it is, with `headers`; the caller destroys
/// it. It holds a reference to the run until libmicrohttpd destroys it, which `releaseRun`
/// gives back.
func makeResponse(run: SharedBytes, headers: HTTPHeaders) -> OpaquePointer? {
    let retained = Unmanaged.passRetained(run)
    // Valid until `releaseRun`: the run is retained, and a shared run does not change.
    guard
        let made = MHD_create_response_from_buffer_with_free_callback_cls(
            run.count, UnsafeMutableRawPointer(mutating: run.address), releaseRun, retained.toOpaque())
    else {
        retained.release()
        return nil
    }
    addHeaders(headers, to: made)
    return made
}

/// A libmicrohttpd response that sends `runs` one after another where they are, with
/// `headers`; the caller destroys it. It holds a reference to the runs (their array, in a box)
/// until libmicrohttpd destroys it, which `releaseRuns` gives back. libmicrohttpd copies the
/// vector of addresses, not the bytes; past `maxVectorRuns` runs it is given none, and reads
/// the runs through `readRuns` instead.
func makeResponse(runs: [SharedBytes], headers: HTTPHeaders) -> OpaquePointer? {
    let held = HeldRuns(runs)
    let retained = Unmanaged.passRetained(held)
    let made: OpaquePointer?
    if runs.count <= maxVectorRuns {
        // Valid until `releaseRuns`: each run is retained through the box, and a shared run does not change.
        let vector = runs.map { MHD_IoVec(iov_base: $0.address, iov_len: $0.count) }
        made = MHD_create_response_from_iovec(vector, UInt32(vector.count), releaseRuns, retained.toOpaque())
    } else {
        made = MHD_create_response_from_callback(
            UInt64(held.ends.last ?? 0), runsBlockSize, readRuns, retained.toOpaque(), releaseRuns)
    }
    guard let made else {
        retained.release()
        return nil
    }
    addHeaders(headers, to: made)
    return made
}

/// Runs a response hands libmicrohttpd as a vector of addresses, at most. libmicrohttpd 0.9.75
/// copies the vector into the connection's memory (`--connection-memory`), which the request's
/// head shares: an events read of 128 revisions (257 runs, 4 KB of vector) with a head of 12 KB,
/// or of 520 revisions with any head, found no room, was closed unanswered, and libmicrohttpd
/// then aborted the process ("Failed to destroy mutex"). `HeaderRoom` leaves 1 KiB for the
/// answer's head; 8 runs take 128 bytes of it.
let maxVectorRuns = 8

/// The block libmicrohttpd allocates with a response read through `readRuns`, and copies the
/// runs into a block at a time: all a response held by a client that does not read costs
/// besides the runs, which it shares.
let runsBlockSize = 16 << 10

/// MHD_ContentReaderCallback of a response made from more runs than `maxVectorRuns`: copies
/// the bytes from `position` on into `buffer`.
func readRuns(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int)
    -> Int
{
    guard let cls, let buffer else { return MHD_CONTENT_READER_END_WITH_ERROR }
    let held = Unmanaged<HeldRuns>.fromOpaque(cls).takeUnretainedValue()
    let written = held.copy(from: Int(position), into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    return written > 0 ? written : MHD_CONTENT_READER_END_OF_STREAM
}

/// MHD_ContentReaderFreeCallback of a response made from runs: it is destroyed, sent or not.
func releaseRuns(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    // Balances the passRetained in makeResponse(runs:headers:).
    Unmanaged<HeldRuns>.fromOpaque(cls).release()
}

/// The runs of a response made by `makeResponse(runs:headers:)`, as one object its context pointer holds.
private final class HeldRuns {
    let runs: [SharedBytes]
    /// Where each run ends in the body.
    let ends: [Int]

    init(_ runs: [SharedBytes]) {
        self.runs = runs
        var end = 0
        ends = runs.map { run in
            end += run.count
            return end
        }
    }

    /// Copies the body's bytes from `position` into `buffer`, as many as it holds; how many.
    /// Looked up, not remembered: libmicrohttpd may send one response on several connections.
    func copy(from position: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        // The first run that ends after `position`.
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= position { low = middle + 1 } else { high = middle }
        }
        var written = 0
        var index = low
        var offset = index < ends.count ? position - (ends[index] - runs[index].count) : 0
        while written < buffer.count, index < runs.count {
            let count = min(buffer.count - written, runs[index].count - offset)
            runs[index].withUnsafeBytes { run in
                UnsafeMutableRawBufferPointer(rebasing: buffer[written..<written + count])
                    .copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: run[offset..<offset + count])))
            }
            written += count
            index += 1
            offset = 0
        }
        return written
    }
}

/// MHD_ContentReaderFreeCallback of a response made from a shared run: it is destroyed, sent or not.
func releaseRun(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    // Balances the passRetained in makeResponse(run:headers:).
    Unmanaged<SharedBytes>.fromOpaque(cls).release()
}

/// Adds `headers` to a response being made.
func addHeaders(_ headers: HTTPHeaders, to response: OpaquePointer) {
    headers.withEachCString { name, value in _ = MHD_add_response_header(response, name, value) }
}
