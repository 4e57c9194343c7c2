@testable import MicroHTTP
import Testing

/// What the default thread count reads: the affinity list and the cgroup's CPU quota.
@Suite("Available processors")
struct AvailableProcessorsTests {
    @Test(
        "A Cpus_allowed_list counts each core and range it names",
        arguments: [
            ("Name:\tx\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", 2 as Int?),
            ("Cpus_allowed_list:\t0\n", 1), ("Cpus_allowed_list:\t0-3,8,10-11\n", 7),
            ("Cpus_allowed_list:\t5-2\n", nil), ("Cpus_allowed_list:\t\n", nil), ("Name:\tx\n", nil),
        ])
    func allowedList(status: String, expected: Int?) {
        #expect(AvailableProcessors.allowedCores(status: status) == expected)
    }

    @Test(
        "A quota is rounded up to whole cores; none, or a malformed one, is no limit",
        arguments: [
            ("max 100000", nil as Int?), ("150000 100000", 2), ("100000 100000", 1), ("50000 100000", 1),
            ("400000 100000\n", 4), ("", nil), ("x 100000", nil),
        ])
    func cpuMax(text: String, expected: Int?) {
        #expect(AvailableProcessors.quotaCores(cpuMax: text) == expected)
    }

    @Test("cgroup v2 is read at the process's own cgroup, else at the root of its namespace")
    func cgroupV2() {
        let files = ["/sys/fs/cgroup/app/cpu.max": "200000 100000\n"]
        #expect(AvailableProcessors.quotaCores(cgroups: "0::/app\n", read: { files[$0] }) == 2)
        let namespaced = ["/sys/fs/cgroup/cpu.max": "300000 100000\n"]
        #expect(AvailableProcessors.quotaCores(cgroups: "0::/app\n", read: { namespaced[$0] }) == 3)
        #expect(AvailableProcessors.quotaCores(cgroups: "0::/\n", read: { namespaced[$0] }) == 3)
        #expect(AvailableProcessors.quotaCores(cgroups: "0::/app\n", read: { _ in nil }) == nil)
    }

    @Test("cgroup v1 is read from the cpu controller's quota and period; -1 is none")
    func cgroupV1() {
        let cgroups = "12:memory:/app\n4:cpu,cpuacct:/app\n"
        let limited = [
            "/sys/fs/cgroup/cpu,cpuacct/app/cpu.cfs_quota_us": "250000\n",
            "/sys/fs/cgroup/cpu,cpuacct/app/cpu.cfs_period_us": "100000\n",
        ]
        #expect(AvailableProcessors.quotaCores(cgroups: cgroups, read: { limited[$0] }) == 3)
        let unlimited = ["/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"]
        #expect(AvailableProcessors.quotaCores(cgroups: cgroups, read: { unlimited[$0] }) == nil)
    }

    @Test("An ancestor's quota binds too: the tightest of the process's cgroup and those above it")
    func ancestorQuota() {
        // A service in a slice: the slice allows one core, the service two.
        let v2 = [
            "/sys/fs/cgroup/app.slice/api.service/cpu.max": "200000 100000\n",
            "/sys/fs/cgroup/app.slice/cpu.max": "100000 100000\n",
        ]
        #expect(AvailableProcessors.quotaCores(cgroups: "0::/app.slice/api.service\n", read: { v2[$0] }) == 1)
        let v1 = [
            "/sys/fs/cgroup/cpu,cpuacct/pod/app/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu,cpuacct/pod/app/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/cpu,cpuacct/pod/cpu.cfs_quota_us": "150000\n",
            "/sys/fs/cgroup/cpu,cpuacct/pod/cpu.cfs_period_us": "100000\n",
        ]
        #expect(AvailableProcessors.quotaCores(cgroups: "4:cpu,cpuacct:/pod/app\n", read: { v1[$0] }) == 2)
    }
}
