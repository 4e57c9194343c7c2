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
/// exists already keeps the mode it was given. Each directory made here has its parent synced
/// (`sync`, `syncDirectory` outside tests): else a power loss could take it away with the files
/// written in it since.
func createDirectory(_ directory: String, sync: (String) -> Int32) -> String? {
    var prefix = directory.hasPrefix("/") ? "/" : ""
    var parent = directory.hasPrefix("/") ? "/" : "."
    let components = directory.split(separator: "/")
    for (index, component) in components.enumerated() {
        prefix += component
        let mode: mode_t = index == components.count - 1 ? 0o700 : 0o755
        if mkdir(prefix, mode) == 0 {
            let failure = sync(parent)
            if failure != 0 { return "\(parent): \(String(cString: strerror(failure)))" }
        } else if errno != EEXIST {
            return "\(prefix): \(String(cString: strerror(errno)))"
        }
        parent = prefix
        prefix += "/"
    }
    var status = stat()
    guard stat(directory, &status) == 0 else { return "\(directory): \(String(cString: strerror(errno)))" }
    guard status.st_mode & S_IFMT == S_IFDIR else { return "\(directory): not a directory" }
    return nil
}

/// The directory part of `path`, as `dirname` gives it ("." for a bare name).
func directoryPart(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Flushes `directory`'s entries to the disk: 0, or the `errno` of a failure. A file's fsync
/// makes its data durable, not its name: until the directory that holds a new file is synced,
/// a power loss can take the file away, with every write acknowledged in it.
func syncDirectory(_ directory: String) -> Int32 {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return errno }
    defer { close(descriptor) }
    // EINVAL: a file system that cannot sync a directory (some network ones), as SQLite allows.
    return fsync(descriptor) == 0 || errno == EINVAL ? 0 : errno
}

/// `path` with every symbolic link resolved, as SQLite names the files beside a database it
/// opens; nil when it does not exist (yet).
func realPath(of path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The directory the file at `path` lives in, every symbolic link resolved, the file's own
/// too when it is a link to a file not made yet (SQLite makes the target at its first open);
/// nil when that directory does not exist.
func resolvedDirectory(ofFileAt path: String) -> String? {
    if let resolved = realPath(of: path) { return directoryPart(of: resolved) }
    var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &target, target.count - 1)
    guard count > 0 else { return realPath(of: directoryPart(of: path)) }
    let link = String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let absolute = link.hasPrefix("/") ? link : directoryPart(of: path) + "/" + link
    return realPath(of: directoryPart(of: absolute))
}
