/// The files of the process's cgroup and its ancestors, where a container's or a service's
/// limits are: `/proc/self/cgroup` names the cgroup, and `/sys/fs/cgroup` holds its files, in
/// one hierarchy (v2) or one per controller (v1). A limit set on an ancestor (a systemd slice
/// holding the service, a pod holding the container) binds the process as much as its own, so
/// every level is read and the caller takes the tightest.
enum ControlGroup {
    /// What the process's cgroup and each of its ancestors up to the hierarchy's root say in
    /// `v2File` (cgroup v2), or else in `v1Files`, all of them, under `controller`'s hierarchy
    /// (cgroup v1): the process's own first, levels with no such file left out; empty when no
    /// level can be read. `cgroups` is the text of `/proc/self/cgroup`.
    static func files(
        cgroups: String, controller: String, v2 v2File: String, v1 v1Files: [String], read: (String) -> String?
    ) -> [Files] {
        for line in cgroups.split(separator: "\n") {
            // "hierarchy:controllers:path": "0::/path" in cgroup v2, "4:cpu,cpuacct:/path" in v1.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let levels = fields[2].split(separator: "/")
            let found: [Files]
            if fields[0] == "0" && fields[1].isEmpty {
                // In a container the cgroup namespace usually makes its own cgroup the root, and
                // without one the path may name directories the container cannot see: the walk
                // up ends at the root it does see either way.
                found = walk(from: "/sys/fs/cgroup", levels) { directory in read(directory + "/" + v2File).map(Files.v2) }
            } else if fields[1].split(separator: ",").contains(Substring(controller)) {
                // A controller is mounted under its own name, or under the names it shares a
                // hierarchy with ("cpu,cpuacct"), whichever the system made.
                var mounted: [Files] = []
                for mount in ["/sys/fs/cgroup/\(fields[1])", "/sys/fs/cgroup/\(controller)"] where mounted.isEmpty {
                    mounted = walk(from: mount, levels) { directory in
                        let texts = v1Files.compactMap { read(directory + "/" + $0) }
                        return texts.count == v1Files.count ? Files.v1(texts) : nil
                    }
                }
                found = mounted
            } else {
                continue
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// What `level` finds in `mount` + `levels`, then in each directory above it up to `mount`.
    private static func walk(from mount: String, _ levels: [Substring], _ level: (String) -> Files?) -> [Files] {
        (0...levels.count).reversed().compactMap { depth in
            level(levels.prefix(depth).reduce(mount) { $0 + "/" + $1 })
        }
    }

    /// The text of the files found at one level: v2's one, or v1's, in the order asked.
    enum Files: Equatable {
        case v2(String)
        case v1([String])
    }
}
