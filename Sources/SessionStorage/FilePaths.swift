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
/// it exists as a directory afterwards, else why not (the system's words).
func createDirectory(_ directory: String) -> String? {
    var prefix = directory.hasPrefix("/") ? "/" : ""
    for component in directory.split(separator: "/") {
        prefix += component
        if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
            return "\(prefix): \(String(cString: strerror(errno)))"
        }
        prefix += "/"
    }
    var status = stat()
    guard stat(directory, &status) == 0 else { return "\(directory): \(String(cString: strerror(errno)))" }
    guard status.st_mode & S_IFMT == S_IFDIR else { return "\(directory): not a directory" }
    return nil
}
