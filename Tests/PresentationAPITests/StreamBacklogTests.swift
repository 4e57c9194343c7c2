import Foundation
@testable import MicroHTTP
import Testing

/// An event stream's first message may be large: every kept event of a session that resumes
/// from its oldest (128 `emit`s of 1 MiB each are 128 MB), plus the session itself.
/// libmicrohttpd takes it a few KiB a call; each call must cost what it copies, not what is left.
@Suite("Event stream backlog")
struct StreamBacklogTests {
    @Test("A large message is read out in time proportional to its size")
    func largeMessageReadsLinearly() {
        let stream = HTTPStream()
        let size = 64 << 20
        #expect(stream.send([UInt8](repeating: 0x61, count: size)))
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var read = 0
        let started = ContinuousClock.now
        while case .bytes(let count) = buffer.withUnsafeMutableBytes({ stream.read(into: $0) }) {
            read += count
        }
        let elapsed = ContinuousClock.now - started
        #expect(read == size)
        // Copying 64 MiB takes milliseconds; moving what is left to the front after each
        // 16 KiB took 4,096 moves of 32 MiB on average, tens of seconds.
        #expect(elapsed < .seconds(2), "64 MiB read in 16 KiB calls took \(elapsed)")
    }
}
