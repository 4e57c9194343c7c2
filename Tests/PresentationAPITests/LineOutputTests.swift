import Dispatch
import Foundation
import Synchronization
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe whose read end the test reads without blocking; closed with the value. With
/// `nonBlockingWrites`, its write end does not block either (as a runtime may hand over stdout).
private final class TestPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init(nonBlockingWrites: Bool = false) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        (readEnd, writeEnd) = (ends[0], ends[1])
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        if nonBlockingWrites { _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Whatever has been written so far.
    func available() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(readEnd, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What is written within `seconds`, read until it holds `expected` lines.
    func lines(_ expected: Int, within seconds: Double = 5) -> [Substring] {
        var text = ""
        let deadline = Date().addingTimeInterval(seconds)
        while text.split(separator: "\n").count < expected, Date() < deadline {
            text += available()
            usleep(2_000)
        }
        return text.split(separator: "\n")
    }
}

private func send(_ text: String, to output: LineOutput, now: Bool = false) {
    let line = Array((text + "\n").utf8)
    line.withUnsafeBufferPointer { now ? output.writeNow($0) : output.write($0) }
}

@Suite("Log lines gathered in batches")
struct LineOutputTests {
    @Test("Without a delay every line is written as it comes")
    func unbuffered() throws {
        let pipe = try TestPipe()
        let output = LineOutput(descriptor: pipe.writeEnd)
        send("one", to: output)
        #expect(pipe.available() == "one\n")
        send("two", to: output)
        #expect(pipe.available() == "two\n")
    }

    @Test("With a delay lines wait; a line written now takes those waiting out first, in order")
    func waitingLinesKeepTheirOrder() throws {
        let pipe = try TestPipe()
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .seconds(600))
        send("first", to: output)
        send("second", to: output)
        #expect(pipe.available() == "")
        send("stopping", to: output, now: true)
        #expect(pipe.available() == "first\nsecond\nstopping\n")
        send("third", to: output)
        #expect(pipe.available() == "")
        output.flush()
        #expect(pipe.available() == "third\n")
        output.flush()
        #expect(pipe.available() == "")
    }

    @Test("A waiting line goes out on its own once the delay has passed")
    func delayedFlush() throws {
        let pipe = try TestPipe()
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .milliseconds(20))
        send("alone", to: output)
        #expect(pipe.lines(1) == ["alone"])
        // The timer is armed again by the next line after a flush.
        send("again", to: output)
        #expect(pipe.lines(1) == ["again"])
    }

    @Test("A full buffer is written before the line that would overflow it; a longer line goes straight out")
    func capacity() throws {
        let pipe = try TestPipe()
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .seconds(600), capacity: 16)
        send("aaaaaa", to: output)  // 7 bytes
        send("bbbbbb", to: output)  // 14
        #expect(pipe.available() == "")
        send("cccccc", to: output)  // would be 21: the first two go out, this one waits
        #expect(pipe.available() == "aaaaaa\nbbbbbb\n")
        send(String(repeating: "d", count: 40), to: output)
        #expect(pipe.available() == "cccccc\n" + String(repeating: "d", count: 40) + "\n")
        output.flush()
        #expect(pipe.available() == "")
    }

    @Test("Changing the delay writes what waits, then applies the new one")
    func changingTheDelay() throws {
        let pipe = try TestPipe()
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .seconds(600))
        send("waiting", to: output)
        output.setDelay(nil)
        #expect(pipe.available() == "waiting\n")
        send("at once", to: output)
        #expect(pipe.available() == "at once\n")
        output.setDelay(.seconds(600))
        send("waits", to: output)
        #expect(pipe.available() == "")
        output.flush()
        #expect(pipe.available() == "waits\n")
    }

    @Test("Lines from many threads arrive whole, each thread's in its order, none lost")
    func manyWriters() throws {
        let pipe = try TestPipe()
        // Larger than a pipe's buffer in all: the reader below must keep up while they write.
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .milliseconds(5), capacity: 512)
        let threads = 8
        let perThread = 2_000
        let received = Mutex("")
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            let deadline = Date().addingTimeInterval(30)
            var text = ""
            while text.split(separator: "\n").count < threads * perThread, Date() < deadline {
                text += pipe.available()
                usleep(500)
            }
            received.withLock { $0 = text }
            done.signal()
        }
        reader.start()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for number in 0..<perThread { send("t\(thread) n\(number) " + String(repeating: "x", count: number % 37), to: output) }
        }
        output.flush()
        done.wait()
        let lines = received.withLock { $0 }.split(separator: "\n")
        #expect(lines.count == threads * perThread)
        for thread in 0..<threads {
            let numbers = lines.filter { $0.hasPrefix("t\(thread) ") }.map { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: false)
                #expect(fields.count == 3 && fields[2].count == Int(fields[1].dropFirst())! % 37)
                return Int(fields[1].dropFirst())!
            }
            #expect(numbers == Array(0..<perThread))
        }
    }
}

extension LineOutputTests {
    @Test("On a non-blocking descriptor a batch larger than the pipe waits for its reader and arrives whole")
    func nonBlockingPipe() throws {
        let pipe = try TestPipe(nonBlockingWrites: true)
        let size = 1 << 20
        let output = LineOutput(descriptor: pipe.writeEnd, delay: .seconds(600), capacity: size + 1)
        // A reader that starts late and reads slowly, while the write waits for it.
        let received = Mutex("")
        let reader = Thread {
            usleep(50_000)
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while text.utf8.count < size + 1, Date() < deadline {
                text += pipe.available()
                usleep(1_000)
            }
            received.withLock { $0 = text }
        }
        reader.start()
        send(String(repeating: "x", count: size), to: output, now: true)
        let deadline = Date().addingTimeInterval(30)
        while received.withLock({ $0.isEmpty }), Date() < deadline { usleep(1_000) }
        #expect(received.withLock { $0 } == String(repeating: "x", count: size) + "\n")
    }
}

extension LineOutputTests {
    @Test("A write given up mid-line (a reader gone for a second) breaks no line: its rest goes out before the next")
    func givenUpMidLine() throws {
        let pipe = try TestPipe(nonBlockingWrites: true)
        // Longer than the pipe holds (64 KiB by default, 1 MiB at most unprivileged) while
        // nobody reads: the write fills the pipe, waits its second and gives up mid-line.
        let size = 2 << 20
        let output = LineOutput(descriptor: pipe.writeEnd)
        send(String(repeating: "x", count: size), to: output, now: true)
        // The reader is back: what it reads from now on must be whole lines.
        let received = Mutex("")
        let reader = Thread {
            var text = ""
            let deadline = Date().addingTimeInterval(10)
            while !text.hasSuffix("next\n"), Date() < deadline {
                text += pipe.available()
                usleep(1_000)
            }
            received.withLock { $0 = text }
        }
        reader.start()
        send("next", to: output, now: true)
        let deadline = Date().addingTimeInterval(15)
        while received.withLock({ $0.isEmpty }), Date() < deadline { usleep(1_000) }
        let lines = received.withLock { $0 }.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "")
        #expect(lines.first.map { $0.allSatisfy { $0 == "x" } } == true, "a broken line: \(lines.first?.suffix(12) ?? "")")
        #expect(lines.dropFirst().first == "next")
    }
}
