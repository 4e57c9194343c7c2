#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the server refuses about the directory it serves at `/`, to anyone and without a token.
extension Options {
    /// A refusal when the operator named a public directory (flag or variable) that is not
    /// one: a typo there served the API without its page, with only an info line in the log.
    /// The default `./Public` may be missing (a binary run from elsewhere serves the API alone).
    func missingPublicDirectoryRefusal() -> OptionsError? {
        guard given("--public-dir") else { return nil }
        return refusal(
            "--public-dir", publicDirectory, "a directory (leave the setting out to serve the API without the page)")
    }

    /// A refusal when the directory served at `/`, to anyone and without a token, holds the
    /// durable store's directory: `--public-dir .` beside the default `./data` served the
    /// session database and its log (every session's screens, params and token digest) as
    /// `GET /data/sessions.sqlite3-wal`. nil when it does not, or when nothing is stored.
    /// `publicRoot` is the served root with its links resolved (`StaticFiles.resolvedRoot`);
    /// the data directory is resolved here, one not made yet as it will be (`ResolvedPath`), so
    /// that a refused start makes nothing (main asks before the store opens the directory, and
    /// again after, of the directory as made).
    func servedDataRefusal(publicRoot: String) -> OptionsError? {
        guard storage == .sqlite, Self.serves(dataDirectory, publicRoot: publicRoot) else { return nil }
        return refusal(
            "--public-dir", publicDirectory,
            "a directory that does not hold \(name("--data-dir", like: "--public-dir")) (\(dataDirectory)): "
                + "it is served to anyone, and the session database would be too")
    }

    /// A refusal when the directory served at `/` holds the TLS private key or the admin token
    /// file: `--public-dir .` beside `--tls-key key.pem` served the key as `GET /key.pem`, and
    /// an admin token file as plainly. nil when neither is served.
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

    /// Whether `StaticFiles` would serve the file at `path`, or the files of the directory at
    /// `path`, its links resolved (a part not made yet as it will be made): it is the root itself
    /// or under it by a path of no dot segment (those are never served, so `./.data` under
    /// `--public-dir .` is safe). Compared byte for byte, as `StaticFiles` compares: `String`'s
    /// prefix test takes canonically equal names as one.
    private static func serves(_ path: String, publicRoot: String) -> Bool {
        guard let resolved = ResolvedPath.of(path) else { return false }
        let found = resolved.utf8
        let root = publicRoot.utf8
        guard found.starts(with: root) else { return false }
        let rest = found.dropFirst(root.count)
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: "/") || root.last == UInt8(ascii: "/") else { return false }
        return !rest.split(separator: UInt8(ascii: "/")).contains { $0.first == UInt8(ascii: ".") }
    }
}
