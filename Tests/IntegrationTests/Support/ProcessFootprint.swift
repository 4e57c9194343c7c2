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
