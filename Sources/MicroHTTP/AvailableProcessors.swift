#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many cores the process may actually run on: the cores online, fewer when its CPU
/// affinity allows fewer (`taskset`, a `cpuset` cgroup), and fewer again when its cgroup's CPU
/// quota is less (a container's `--cpus`, a Kubernetes CPU limit).
///
/// The default number of worker threads: counted from the cores online alone, a server given
/// one core of a 64-core host started 64 epoll threads, each contending for that core and
/// each holding its own share of connections and memory. Foundation's
/// `activeProcessorCount` reads neither here (it answers 2 under `taskset -c 0` on this
/// machine). An ancestor's quota binds as the process's own does: the tightest is taken.
public enum AvailableProcessors {
    public static var count: Int {
        var count = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        if let allowed = affinityCount() { count = min(count, allowed) }
        if let cgroups = FileSystem.readSmallFile("/proc/self/cgroup"), let quota = quotaCores(cgroups: cgroups) {
            count = min(count, quota)
        }
        return max(1, count)
    }

    /// The cores the affinity mask allows, from `/proc/self/status` (libc's
    /// `sched_getaffinity` is not in Swift's Glibc module); nil where it cannot be read.
    private static func affinityCount() -> Int? {
        FileSystem.readSmallFile("/proc/self/status", limit: 16 << 10).flatMap(allowedCores(status:))
    }

    /// The cores a `Cpus_allowed_list:` line of a status file names, such as "0-3,8,10-11": 7.
    static func allowedCores(status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            var count = 0
            for range in line.dropFirst("Cpus_allowed_list:".count).trimmingWhitespace.split(separator: ",") {
                let bounds = range.split(separator: "-").map { Int($0.trimmingWhitespace) }
                switch bounds.count {
                case 1:
                    guard bounds[0] != nil else { return nil }
                    count += 1
                case 2:
                    guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                    count += high - low + 1
                default: return nil
                }
            }
            return count > 0 ? count : nil
        }
        return nil
    }

    /// The cores the tightest quota of the process's cgroup and its ancestors allows (rounded
    /// up); nil when there is no quota or no file to read.
    static func quotaCores(cgroups: String, read: (String) -> String? = { FileSystem.readSmallFile($0) }) -> Int? {
        let levels = ControlGroup.files(
            cgroups: cgroups, controller: "cpu", v2: "cpu.max", v1: ["cpu.cfs_quota_us", "cpu.cfs_period_us"], read: read)
        return levels.compactMap { level -> Int? in
            switch level {
            case .v2(let cpuMax): quotaCores(cpuMax: cpuMax)
            case .v1(let files): quotaCores(quota: files[0], period: files[1])
            }
        }.min()
    }

    /// cgroup v2's `cpu.max`: "max 100000" (no quota) or "150000 100000" (1.5 cores: 2).
    static func quotaCores(cpuMax: String) -> Int? {
        let fields = cpuMax.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2 else { return nil }
        return quotaCores(quota: String(fields[0]), period: String(fields[1]))
    }

    /// cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`: a quota of -1 (or "max") is none.
    static func quotaCores(quota: String, period: String) -> Int? {
        guard let quota = Int(quota.trimmingWhitespace), quota > 0,
            let period = Int(period.trimmingWhitespace), period > 0
        else { return nil }
        return max(1, (quota + period - 1) / period)
    }
}
