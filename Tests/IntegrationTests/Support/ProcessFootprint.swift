import Foundation

/// What a running process holds, read from /proc: the figures a leak shows up in.
struct ProcessFootprint: Equatable, CustomStringConvertible {
    let descriptors: Int
    let threads: Int
    let residentKiB: Int

    init(of pid: Int32) throws {
        descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            // Tabs as well as spaces: `Threads:\t5` has no space, and split at spaces alone it read
            // as -1, before and after alike, so that comparisons of thread counts always held.
            let words = line.split(omittingEmptySubsequences: true) { $0 == " " || $0 == "\t" }
            return Int(words.dropFirst().first ?? "") ?? -1
        }
        threads = field("Threads")
        residentKiB = field("VmRSS")
    }

    var description: String { "\(descriptors) fds, \(threads) threads, \(residentKiB) KiB resident" }

    /// The process once its resident size has stopped moving (by under 1 MiB over a second),
    /// for tests that bound what requests made it grow by; nil if it is still moving after
    /// `patience` seconds. A fixed pause would read too early on a loaded machine.
    static func settled(of pid: Int32, within patience: Double = 30) throws -> ProcessFootprint? {
        var last = try ProcessFootprint(of: pid)
        var settled: ProcessFootprint?
        _ = try eventually(within: patience) {
            Thread.sleep(forTimeInterval: 1)
            let now = try ProcessFootprint(of: pid)
            defer { last = now }
            guard abs(now.residentKiB - last.residentKiB) < 1 << 10 else { return false }
            settled = now
            return true
        }
        return settled
    }
}

extension HTTPConnection {
    /// True when the server closes this connection within `interval` (whatever it sends first).
    func closedByServer(within interval: Duration) -> Bool {
        let deadline = ContinuousClock.now + interval
        while ContinuousClock.now < deadline {
            do {
                guard try readAvailable(until: deadline) != nil else { return true }
            } catch .timedOut {
                return false
            } catch {
                return true
            }
        }
        return false
    }
}
