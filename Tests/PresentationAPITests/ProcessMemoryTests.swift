@testable import MicroHTTP
import Testing

/// What `--max-memory` measures and defaults to: resident pages, the machine's memory and the
/// cgroup's memory limit.
@Suite("Process memory")
struct ProcessMemoryTests {
    @Test("statm's second field is the resident pages")
    func statm() {
        #expect(ProcessMemory.residentBytes(statm: "5012 1203 800 300 0 900 0\n", pageSize: 4096) == 1203 * 4096)
        #expect(ProcessMemory.residentBytes(statm: "5012\n", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statm: "", pageSize: 4096) == nil)
    }

    @Test("MemTotal is read in kB, wherever it comes in meminfo")
    func memTotal() {
        #expect(ProcessMemory.totalBytes(meminfo: "MemTotal:       24576000 kB\nMemFree: 1 kB\n") == 24_576_000 * 1024)
        #expect(ProcessMemory.totalBytes(meminfo: "MemFree: 1 kB\nMemTotal: 2048 kB\n") == 2048 * 1024)
        #expect(ProcessMemory.totalBytes(meminfo: "MemTotal: 2048 MB\n") == nil)
        #expect(ProcessMemory.totalBytes(meminfo: "MemFree: 1 kB\n") == nil)
    }

    @Test("The cgroup's memory limit: v2's memory.max, max is none; v1's limit_in_bytes, near 2^63 is none")
    func cgroupLimit() {
        let v2 = ["/sys/fs/cgroup/app/memory.max": "536870912\n"]
        #expect(ProcessMemory.limitBytes(cgroups: "0::/app\n", read: { v2[$0] }) == 536_870_912)
        let unlimited = ["/sys/fs/cgroup/memory.max": "max\n"]
        #expect(ProcessMemory.limitBytes(cgroups: "0::/\n", read: { unlimited[$0] }) == nil)
        let cgroups = "12:memory:/app\n4:cpu,cpuacct:/app\n"
        let v1 = ["/sys/fs/cgroup/memory/app/memory.limit_in_bytes": "268435456\n"]
        #expect(ProcessMemory.limitBytes(cgroups: cgroups, read: { v1[$0] }) == 268_435_456)
        let v1Unlimited = ["/sys/fs/cgroup/memory/app/memory.limit_in_bytes": "9223372036854771712\n"]
        #expect(ProcessMemory.limitBytes(cgroups: cgroups, read: { v1Unlimited[$0] }) == nil)
        #expect(ProcessMemory.limitBytes(cgroups: cgroups, read: { _ in nil }) == nil)
    }

    @Test("An ancestor's memory limit binds too: the tightest of the process's cgroup and those above it")
    func ancestorLimit() {
        // A service with no limit of its own in a slice of 256 MiB; a looser limit above the
        // slice's is not the one that binds.
        let v2 = [
            "/sys/fs/cgroup/app.slice/api.service/memory.max": "max\n",
            "/sys/fs/cgroup/app.slice/memory.max": "268435456\n",
            "/sys/fs/cgroup/memory.max": "1073741824\n",
        ]
        #expect(ProcessMemory.limitBytes(cgroups: "0::/app.slice/api.service\n", read: { v2[$0] }) == 268_435_456)
        let v1 = [
            "/sys/fs/cgroup/memory/pod/app/memory.limit_in_bytes": "536870912\n",
            "/sys/fs/cgroup/memory/pod/memory.limit_in_bytes": "134217728\n",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        ]
        #expect(ProcessMemory.limitBytes(cgroups: "12:memory:/pod/app\n", read: { v1[$0] }) == 134_217_728)
    }

    @Test("This process's own figures can be read here")
    func ownFigures() throws {
        let resident = try #require(ProcessMemory.residentBytes)
        let available = try #require(ProcessMemory.availableBytes)
        #expect(resident > 0 && resident < available)
    }
}
