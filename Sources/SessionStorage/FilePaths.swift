#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `name` inside `directory`, as the data directory's files are named.
func filePath(_ name: String, in directory: String) -> String {
    if directory.isEmpty { return name }
    return directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// Creates `directory` and any of its parents that are missing, as `mkdir -p` does; nil when
/// it exists as a directory afterwards, else why not (the system's words). The directory
/// itself, when made here, is its owner's alone (0700): it holds what users typed (params,
/// results, an alert's secure fields), which no other local user should read. One that
/// exists already keeps the mode it was given.
func createDirectory(_ directory: String) -> String? {
    var prefix = directory.hasPrefix("/") ? "/" : ""
    let components = directory.split(separator: "/")
    for (index, component) in components.enumerated() {
        prefix += component
        let mode: mode_t = index == components.count - 1 ? 0o700 : 0o755
        if mkdir(prefix, mode) != 0 && errno != EEXIST {
            return "\(prefix): \(String(cString: strerror(errno)))"
        }
        prefix += "/"
    }
    var status = stat()
    guard stat(directory, &status) == 0 else { return "\(directory): \(String(cString: strerror(errno)))" }
    guard status.st_mode & S_IFMT == S_IFDIR else { return "\(directory): not a directory" }
    return nil
}
