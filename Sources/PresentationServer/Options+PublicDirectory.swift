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
    /// the data directory is resolved here, so asked once the store has made it.
    func servedDataRefusal(publicRoot: String) -> OptionsError? {
        guard storage == .sqlite, let resolved = realpath(dataDirectory, nil) else { return nil }
        defer { free(resolved) }
        let data = String(cString: resolved)
        let prefix = publicRoot.hasSuffix("/") ? publicRoot : publicRoot + "/"
        guard data == publicRoot || data.hasPrefix(prefix) else { return nil }
        // A path with a segment beginning with a dot is never served (StaticFiles): `./.data`
        // under `--public-dir .` is safe, and works as it did.
        if data.dropFirst(prefix.count).split(separator: "/").contains(where: { $0.hasPrefix(".") }) { return nil }
        return refusal(
            "--public-dir", publicDirectory,
            "a directory that does not hold \(name("--data-dir", like: "--public-dir")) (\(dataDirectory)): "
                + "it is served to anyone, and the session database would be too")
    }
}
