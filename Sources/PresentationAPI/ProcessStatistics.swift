#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The process's own figures, read from Linux's `/proc` when `/metrics` is asked for: the
/// families Prometheus's client libraries call `process_*`, so existing dashboards and alerts
/// (memory creeping, descriptors leaking) work unchanged. Elsewhere the figures are nil and
/// their families are left out rather than reported as zero.
struct ProcessStatistics {
    var cpuSeconds: Double?
    var residentBytes: Int?
    var virtualBytes: Int?
    var threads: Int?
    /// Seconds since the Unix epoch.
    var startTime: Double?
    var openDescriptors: Int?
    var maxDescriptors: Int?

    static func read() -> ProcessStatistics {
        var statistics = ProcessStatistics()
        statistics.openDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map(\.count)
        var limit = rlimit()
        // RLIM_INFINITY is all ones.
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            statistics.maxDescriptors = Int(limit.rlim_cur)
        }
        guard let fields = statFields() else { return statistics }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = sysconf(Int32(_SC_PAGESIZE))
        // proc(5) numbers the fields from 1; `fields` starts at field 3, the state.
        func field(_ number: Int) -> Int? { Int(fields[number - 3]) }
        if let user = field(14), let system = field(15), ticks > 0 {
            statistics.cpuSeconds = Double(user + system) / ticks
        }
        statistics.threads = field(20)
        if let started = field(22), let boot = bootTime(), ticks > 0 {
            statistics.startTime = Double(boot) + Double(started) / ticks
        }
        statistics.virtualBytes = field(23)
        statistics.residentBytes = field(24).map { $0 * page }
        return statistics
    }

    /// The fields of `/proc/self/stat` after the command name, which is in parentheses and may
    /// itself hold spaces and parentheses: hence split after the last `)`.
    private static func statFields() -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count >= 22 ? fields : nil
    }

    /// When the machine booted, in seconds since the epoch (`btime` in `/proc/stat`).
    private static func bootTime() -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        let line = stat.split(separator: "\n").first { $0.hasPrefix("btime ") }
        return line.flatMap { Int($0.dropFirst("btime ".count)) }
    }
}
