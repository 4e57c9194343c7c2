/// The files of the process's own cgroup, where a container's limits are: `/proc/self/cgroup`
/// names the cgroup, and `/sys/fs/cgroup` holds its files, in one hierarchy (v2) or one per
/// controller (v1). Only the process's own cgroup is read, not its ancestors' limits.
enum ControlGroup {
    /// What the process's cgroup says in `v2File` (cgroup v2), or else in `v1Files`, all of
    /// them, under `controller`'s hierarchy (cgroup v1); nil when neither can be read.
    /// `cgroups` is the text of `/proc/self/cgroup`.
    static func files(
        cgroups: String, controller: String, v2 v2File: String, v1 v1Files: [String], read: (String) -> String?
    ) -> Files? {
        for line in cgroups.split(separator: "\n") {
            // "hierarchy:controllers:path": "0::/path" in cgroup v2, "4:cpu,cpuacct:/path" in v1.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = fields[2] == "/" ? "" : String(fields[2])
            let controllers = fields[1].split(separator: ",")
            if fields[0] == "0" && controllers.isEmpty {
                // In a container the cgroup namespace usually makes its own cgroup the root.
                for directory in ["/sys/fs/cgroup" + path, "/sys/fs/cgroup"] {
                    if let text = read(directory + "/" + v2File) { return .v2(text) }
                }
            } else if controllers.contains(Substring(controller)) {
                let directories = ["/sys/fs/cgroup/\(fields[1])" + path, "/sys/fs/cgroup/\(controller)" + path, "/sys/fs/cgroup/\(controller)"]
                for directory in directories {
                    let texts = v1Files.compactMap { read(directory + "/" + $0) }
                    if texts.count == v1Files.count { return .v1(texts) }
                }
            }
        }
        return nil
    }

    /// The text of the files found: v2's one, or v1's, in the order asked.
    enum Files: Equatable {
        case v2(String)
        case v1([String])
    }
}
