@testable import MicroHTTP
import SessionChecks
import Testing

/// An event stream's first message may be large: every kept event of a session that resumes
/// from its oldest (128 `emit`s of 1 MiB each are 128 MB), plus the session itself.
/// libmicrohttpd takes it a few KiB a call, so the stream reads from an offset into its queue
/// rather than moving what is left to the front on every call (which made such a read take
/// seconds of CPU: 64 MiB in 16 KiB calls, 7.98 s; by offset, 0.09 s. Speed is the bench's to
/// measure, not a test's: these check that the offsets lose, repeat and keep nothing).
@Suite("Event stream backlog")
struct StreamBacklogTests {
    @Test("Messages sent between reads of every size come out whole and in order", arguments: 0..<8)
    func interleavedSendsAndReads(seed: Int) {
        var random = SplitMix64(state: UInt64(seed))
        let stream = HTTPStream(maxBufferedBytes: 1 << 30)
        var sent: [UInt8] = []
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 70_000)
        for step in 0..<1_000 {
            if random.chance(40) {
                // Each message of its own byte, so that a lost, repeated or misplaced run shows.
                let message = [UInt8](repeating: UInt8(truncatingIfNeeded: step), count: random.pick([1, 7, 300, 4_096, 20_000, 100_000]))
                #expect(stream.send(message))
                sent += message
            } else {
                let size = random.int(1..<buffer.count)
                if case .bytes(let count) = buffer.withUnsafeMutableBytes({ stream.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<size])) }) {
                    received += buffer[..<count]
                }
            }
        }
        while case .bytes(let count) = buffer.withUnsafeMutableBytes({ stream.read(into: $0) }) {
            received += buffer[..<count]
        }
        #expect(received.count == sent.count)
        #expect(received == sent)
    }

    @Test("A message's storage goes once it is all sent")
    func storageFreedOnceSent() {
        let stream = HTTPStream()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        #expect(stream.send([UInt8](repeating: 0x61, count: 8 << 20)))
        #expect(stream.bufferCapacity >= 8 << 20)
        var read = 0
        while case .bytes(let count) = buffer.withUnsafeMutableBytes({ stream.read(into: $0) }) { read += count }
        #expect(read == 8 << 20)
        #expect(stream.bufferCapacity == 0, "an idle subscriber would keep 8 MiB")
    }

    /// A session's message goes to every subscriber of it: copied into each stream's queue, a
    /// hundred clients that stopped reading a stream of a 3.5 MB session held 450 MB.
    @Test("Streams sent the same message hold it, not a copy of it each, until it is read")
    func sharedNotCopied() {
        let message = [UInt8](repeating: 0x61, count: 1 << 20)
        let original = message.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
        let streams = (0..<3).map { _ in HTTPStream() }
        for stream in streams {
            #expect(stream.send(together: [Array("event: a\n".utf8), message]))
            #expect(stream.queuedStorage.last == original)
        }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var received: [UInt8] = []
        while case .bytes(let count) = buffer.withUnsafeMutableBytes({ streams[0].read(into: $0) }) {
            received += buffer[..<count]
        }
        #expect(received == Array("event: a\n".utf8) + message)
        #expect(streams[1].queuedStorage.last == original, "one stream's read leaves the others' message as it was")
    }

    /// docs/api.md: "A reader more than 1 MiB behind is ended". Exactly the limit behind is
    /// not more than it: the next message is taken, and only one past it ends the stream.
    @Test("A reader exactly the limit behind is kept; one byte more behind is ended")
    func behindByTheLimitExactly() {
        let stream = HTTPStream(maxBufferedBytes: 100)
        #expect(stream.send([UInt8](repeating: 0x61, count: 100)))
        #expect(stream.send([0x62]), "100 bytes behind is not more than 100")
        #expect(!stream.send([0x63]), "101 bytes behind is more than 100")
    }
}
