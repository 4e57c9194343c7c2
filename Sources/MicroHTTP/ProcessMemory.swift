#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's memory as the kernel counts it, and how much it may use: what a container's
/// memory limit (or the OOM killer) judges it by.
public enum ProcessMemory {
    /// Resident bytes, from `/proc/self/statm` (its second field, in pages); nil where it cannot
    /// be read. Three system calls: read when needed, not on every request.
    public static var residentBytes: Int? {
        guard let statm = FileSystem.readSmallFile("/proc/self/statm") else { return nil }
        return residentBytes(statm: statm, pageSize: sysconf(Int32(_SC_PAGESIZE)))
    }

    static func residentBytes(statm: String, pageSize: Int) -> Int? {
        let fields = statm.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 2, let pages = Int(fields[1]), pageSize > 0 else { return nil }
        return pages * pageSize
    }

    /// The memory the process may use: its cgroup's limit, or an ancestor's (a container's
    /// `--memory`, a Kubernetes memory limit, a systemd slice's `MemoryMax=`) when there is one
    /// below the machine's, else the machine's
    /// (`MemTotal`); nil where neither can be read.
    public static var availableBytes: Int? {
        let machine = FileSystem.readSmallFile("/proc/meminfo", limit: 8192).flatMap(totalBytes(meminfo:))
        let cgroup = FileSystem.readSmallFile("/proc/self/cgroup").flatMap { limitBytes(cgroups: $0) }
        return [machine, cgroup].compactMap { $0 }.min()
    }

    /// `MemTotal:  24576000 kB` of `/proc/meminfo`, in bytes.
    static func totalBytes(meminfo: String) -> Int? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            let fields = line.dropFirst("MemTotal:".count).split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, fields[1] == "kB", let kilobytes = Int(fields[0]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    /// The tightest memory limit of the process's cgroup and its ancestors: v2's `memory.max`
    /// ("max" is none) or v1's `memory.limit_in_bytes` (no limit reads as a number near 2^63).
    static func limitBytes(cgroups: String, read: (String) -> String? = { FileSystem.readSmallFile($0) }) -> Int? {
        let levels = ControlGroup.files(
            cgroups: cgroups, controller: "memory", v2: "memory.max", v1: ["memory.limit_in_bytes"], read: read)
        return levels.compactMap { level -> Int? in
            switch level {
            case .v2(let text): Int(text.trimmingWhitespace)
            case .v1(let texts): Int(texts[0].trimmingWhitespace).flatMap { $0 < 1 << 62 ? $0 : nil }
            }
        }.min()
    }

    /// Hands the pages of freed heap back to the kernel (glibc's `malloc_trim`), which glibc
    /// otherwise keeps for later allocations and the kernel counts as resident. Walks every
    /// arena: milliseconds with a large heap, so only now and then. `malloc_trim` is not in
    /// Swift's Glibc module, so it is looked up by name; where the C library has none (musl,
    /// Darwin) there is nothing to do.
    public static func giveBackFreePages() {
        #if canImport(Glibc)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            // A null handle is glibc's RTLD_DEFAULT: the symbol wherever the process has it.
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
