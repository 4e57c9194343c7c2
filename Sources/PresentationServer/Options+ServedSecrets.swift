#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of secrets the server reads must not be among those it serves to anyone.
extension Options {
    /// A refusal when the directory served at `/`, to anyone and without a token, holds the TLS
    /// private key or the admin token file: `--public-dir .` beside `--tls-key key.pem` served
    /// the key as `GET /key.pem`, and an admin token file as plainly. nil when neither is
    /// served: outside it, or in a dot directory under it, which is never served (StaticFiles).
    /// `publicRoot` is the served root with its links resolved (`StaticFiles.resolvedRoot`).
    func servedSecretRefusal(publicRoot: String) -> OptionsError? {
        let secrets: [(flag: String, path: String?)] = [("--tls-key", tlsKeyPath), ("--admin-token-file", adminTokenFile)]
        for (flag, path) in secrets {
            guard let path, Self.serves(path, publicRoot: publicRoot) else { continue }
            return refusal(
                "--public-dir", publicDirectory,
                "a directory that does not hold \(name(flag, like: "--public-dir")) (\(path)): "
                    + "it is served to anyone, and that file would be too")
        }
        return nil
    }

    /// Whether the file at `path`, its links resolved, is under `publicRoot` by a path of no
    /// dot segment: what `StaticFiles` would serve if asked for it.
    private static func serves(_ path: String, publicRoot: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        let file = String(cString: resolved)
        let prefix = publicRoot.hasSuffix("/") ? publicRoot : publicRoot + "/"
        guard file.hasPrefix(prefix) else { return false }
        return !file.dropFirst(prefix.count).split(separator: "/").contains(where: { $0.hasPrefix(".") })
    }
}
