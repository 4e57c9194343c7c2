import Synchronization

/// Serves the files under one directory, and nothing outside it.
///
/// A request path is refused (nil, so the caller answers its own 404) when any segment
/// is empty, `.`, `..` or starts with a dot, or when the file it names, once every
/// symbolic link is resolved (`realpath`), is not a regular file inside the root, or is
/// there by such a path (a link into a dot directory). The
/// path arrives percent-decoded, so `%2e%2e` is checked as `..`. Files are read once and
/// kept in memory until their identity, modification time or status change time changes.
public final class StaticFiles: Sendable {
    /// The root as given.
    public let root: String
    /// The root with every symbolic link resolved: the prefix every served file must have.
    public let resolvedRoot: String
    /// Headers added to every HTML page: the security policy the client is written for.
    public let pageHeaders: HTTPHeaders
    /// Larger files are not served (they would be held in memory whole).
    public let maxFileBytes: Int
    private let cache = Mutex<[String: StaticFile]>([:])
    private static let cacheCapacity = 512

    /// A strict policy for a same-origin page of modules and stylesheets: no inline script
    /// or style, nothing from another origin, no framing.
    public static let defaultPageHeaders: HTTPHeaders = [
        "Content-Security-Policy":
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
    ]

    /// An SVG is a document that may hold script: opened by itself at this origin it would run
    /// with the page's rights (its storage holds session tokens). Drawn as an image (`<img>`, an
    /// icon) it runs nothing anyway, and this policy, which only a document opened by itself
    /// obeys, lets it draw with its own styles and nothing else.
    static let drawingPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    public init(
        root: String,
        pageHeaders: HTTPHeaders = StaticFiles.defaultPageHeaders,
        maxFileBytes: Int = 16 << 20
    ) throws(StaticFilesError) {
        guard let resolved = try? FileSystem.resolve(root), FileSystem.isDirectory(resolved) else {
            throw .notADirectory(root)
        }
        self.root = root
        resolvedRoot = resolved
        self.pageHeaders = pageHeaders
        self.maxFileBytes = maxFileBytes
    }

    /// The file's response, or nil when no file of that path is here (the caller answers 404).
    /// `/` and any path ending in `/` mean that directory's `index.html`. A 412 (a false
    /// `If-Match`) comes with the file's `ETag` and no body; so does a 503 (with `Retry-After`)
    /// for a file that is there but cannot be read now: a process out of descriptors answered
    /// 404, telling clients and caches the page was gone when it was only busy.
    public func response(for request: HTTPRequest) -> HTTPResponse? {
        let file: StaticFile
        switch Result(catching: { () throws(FileSystem.Failure) in try self.file(at: request.path) }) {
        case .success(let found): file = found
        case .failure(.absent): return nil
        case .failure(.unavailable): return HTTPResponse(status: .serviceUnavailable, headers: ["Retry-After": "1"])
        }
        var headers: HTTPHeaders = ["ETag": file.entityTag, "Cache-Control": "no-cache"]
        // RFC 9110 13.1.1 and 13.2.2: If-Match is judged first, GET or HEAD as any method, and
        // one naming none of the file's tags is 412, not the file. Without a body: the caller,
        // which knows how its errors are written, gives it one.
        if let condition = request.headers.list("If-Match"), !EntityTags.any(in: condition, matches: file.entityTag, strongly: true) {
            return HTTPResponse(status: .preconditionFailed, headers: ["ETag": file.entityTag])
        }
        if let condition = request.headers.list("If-None-Match"), EntityTags.any(in: condition, matches: file.entityTag) {
            return HTTPResponse(status: .notModified, headers: headers, body: .shared(file.bytes))
        }
        headers.add("Content-Type", file.mediaType.value)
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Referrer-Policy", "no-referrer")
        if file.mediaType == .html {
            for field in pageHeaders { headers.set(field.name, field.value) }
        } else if file.mediaType == .svg {
            headers.set("Content-Security-Policy", Self.drawingPolicy)
        }
        return HTTPResponse(status: .ok, headers: headers, body: .shared(file.bytes))
    }

    /// Whether `path` names a file served here, whatever the method asking (one that cannot be
    /// read now is still there).
    public func serves(_ path: String) -> Bool {
        do {
            _ = try file(at: path)
            return true
        } catch {
            return error == .unavailable
        }
    }

    /// The file a request path names, read or taken from the cache; `absent` when it is refused.
    func file(at requestPath: String) throws(FileSystem.Failure) -> StaticFile {
        guard let relative = Self.relativePath(requestPath) else { throw .absent }
        let resolved = try FileSystem.resolve(resolvedRoot + "/" + relative)
        guard
            // Byte for byte: String's own prefix test takes canonically equal names as one.
            resolved.utf8.starts(with: (resolvedRoot + "/").utf8),
            // A link may lead into a dot directory, where the server lets its data directory and
            // secret files be (Options): what it leads to is judged as a path asking for it is.
            Self.relativePath(String(decoding: resolved.utf8.dropFirst(resolvedRoot.utf8.count), as: UTF8.self)) != nil
        else { throw .absent }
        // A file read before is served from memory while `lstat` finds it unchanged (the same
        // inode and times, so not a link swapped in): no descriptor needed, so the page still
        // loads when clients hold every one.
        let cached = cache.withLock { $0[resolved] }
        if let cached, try FileSystem.identity(of: resolved) == cached.identity {
            return cached
        }
        // Opened without following a link, so a link swapped in after `realpath` is refused.
        let opened = try FileSystem.OpenFile(path: resolved)
        let identity = opened.identity
        guard identity.isRegularFile, identity.size <= maxFileBytes else { throw .absent }
        if let cached, cached.identity == identity {
            return cached
        }
        let bytes = try opened.readAll(expected: identity.size)
        let file = StaticFile(bytes: bytes, identity: identity, mediaType: MediaType(path: resolved))
        cache.withLock { cache in
            if cache.count >= Self.cacheCapacity { cache.removeAll() }
            cache[resolved] = file
        }
        return file
    }

    /// The path below the root, or nil when a segment could step out of it or is hidden.
    static func relativePath(_ requestPath: String) -> String? {
        guard requestPath.hasPrefix("/") else { return nil }
        let path = requestPath.hasSuffix("/") ? requestPath + "index.html" : requestPath
        let segments = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in segments {
            guard let first = segment.first, first != UInt8(ascii: "."),
                !segment.contains(0), !segment.contains(UInt8(ascii: "\\"))
            else { return nil }
        }
        return String(path.dropFirst())
    }
}

/// Why a directory cannot be served.
public enum StaticFilesError: Error, Hashable, Sendable {
    case notADirectory(String)
}
