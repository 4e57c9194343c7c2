#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A path as the file or directory it names will be once made, its links resolved: what
/// exists of it resolved by `realpath`, and the rest, which the store makes as plain
/// directories (`mkdir` a component at a time, so no links among them), followed as written.
/// `realpath` alone answers nothing for a data directory not made yet, and a start judged on
/// that made the directory, its database and lock file inside the public one before it was
/// refused (ServedDataDirectoryTests).
enum ResolvedPath {
    /// nil when not even the path's first directory (`/`, or the working one) resolves.
    static func of(_ path: String) -> String? {
        if let whole = resolved(path) { return whole }
        let absolute = path.hasPrefix("/")
        let components = path.split(separator: "/")
        // The longest part that exists; a component past it does not, and so is made by the
        // store as a directory, not found as a link.
        for count in stride(from: components.count - 1, through: 0, by: -1) {
            let prefix = (absolute ? "/" : "") + components[..<count].joined(separator: "/")
            guard var found = resolved(prefix.isEmpty ? "." : prefix) else { continue }
            for component in components[count...] {
                switch component {
                case ".": continue
                case "..":
                    // The parent of a directory just made is the one it was made in.
                    if let slash = found.lastIndex(of: "/") {
                        found = slash == found.startIndex ? "/" : String(found[..<slash])
                    }
                default:
                    found += found.hasSuffix("/") ? String(component) : "/" + component
                }
            }
            return found
        }
        return nil
    }

    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
