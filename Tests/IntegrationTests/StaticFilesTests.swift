import Foundation
import MicroHTTP
import Testing

/// `StaticFiles` called directly: which paths it serves, with which headers, and which it refuses.
@Suite("Static files")
struct StaticFilesTests {
    private func serve(_ path: String, headers: HTTPHeaders = HTTPHeaders(), in directory: PublicDirectory) throws
        -> HTTPResponse?
    {
        let files = try StaticFiles(root: directory.root.path)
        return files.response(for: HTTPRequest(method: .get, path: path, headers: headers))
    }

    private func text(_ response: HTTPResponse?) -> String? {
        guard let bytes = response?.body.wholeBytes else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(
        "Each file gets the Content-Type of its extension",
        arguments: [
            ("/index.html", "text/html; charset=utf-8"),
            ("/js/app.js", "text/javascript; charset=utf-8"),
            ("/styles.css", "text/css; charset=utf-8"),
            ("/data.json", "application/json"),
            ("/icon.svg", "image/svg+xml"),
            ("/notes.txt", "text/plain; charset=utf-8"),
            ("/image.PNG", "image/png"),
            ("/favicon.ico", "image/x-icon"),
            ("/openapi.yaml", "application/yaml"),
            ("/js/app.js.map", "application/json"),
            ("/blob.bin", "application/octet-stream"),
        ])
    func contentTypes(path: String, type: String) throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let response = try #require(try serve(path, in: directory))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Cache-Control"] == "no-cache")
    }

    @Test("/ and a directory's trailing slash serve its index.html")
    func indexPages() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        #expect(text(try serve("/", in: directory)) == "<!doctype html><title>Home</title>")
        #expect(text(try serve("/docs/", in: directory)) == "<!doctype html><title>Docs</title>")
        #expect(try serve("/docs", in: directory) == nil, "a directory without its slash is not a file")
    }

    @Test("Pages carry a strict Content-Security-Policy and framing, referrer and sniffing headers; scripts no CSP")
    func securityHeaders() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let page = try #require(try serve("/", in: directory))
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'self'"))
        #expect(policy.contains("script-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(!policy.contains("unsafe-eval"))
        #expect(page.headers["X-Frame-Options"] == "DENY")
        #expect(page.headers["Referrer-Policy"] == "no-referrer")
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        let script = try #require(try serve("/js/app.js", in: directory))
        #expect(script.headers["Content-Security-Policy"] == nil)
        #expect(script.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test(
        "Paths that leave the root, hide, or name nothing are refused",
        arguments: [
            "/../secret.txt", "/js/../../secret.txt", "/js/../index.html", "/./index.html", "/..", "/.",
            "//secret.txt", "/js//app.js", "/.env", "/link-out.txt", "/relative-out.txt", "/dir-out/secret.txt",
            "/missing.js", "/index.html/", "/js", "index.html", "", "/..\\secret.txt", "/js\\..\\..\\secret.txt",
            "/index.html\u{0}.png", "/\(FileManager.default.temporaryDirectory.path)/secret.txt",
        ])
    func refused(path: String) throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        #expect(try serve(path, in: directory) == nil)
    }

    @Test("A link that stays inside the root is served as its target")
    func linkInside() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        #expect(text(try serve("/link-in.html", in: directory)) == "<!doctype html><title>Home</title>")
    }

    @Test("The ETag is strong and follows the content; If-None-Match with it (or W/, a list, *) is 304")
    func entityTags() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let files = try StaticFiles(root: directory.root.path)
        func get(_ headers: HTTPHeaders = HTTPHeaders()) throws -> HTTPResponse {
            try #require(files.response(for: HTTPRequest(method: .get, path: "/styles.css", headers: headers)))
        }
        let first = try get()
        let tag = try #require(first.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(try get().headers["ETag"] == tag, "the same bytes give the same tag")
        for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
            let cached = try get(["If-None-Match": condition])
            #expect(cached.status == .notModified, "If-None-Match: \(condition)")
            #expect(cached.headers["ETag"] == tag)
            // The 200's body, whose length libmicrohttpd states and whose bytes it does not send.
            #expect(cached.body.wholeBytes == (try get().body.wholeBytes))
        }
        for condition in ["\"other\"", "garbage", "W/\"x\""] {
            #expect(try get(["If-None-Match": condition]).status == .ok, "If-None-Match: \(condition)")
        }
        // Same size, different bytes: the cache must notice the change, not serve the old copy.
        try directory.write("styles.css", "body { margin: 1 }")
        let changed = try get(["If-None-Match": tag])
        #expect(changed.status == .ok)
        #expect(changed.headers["ETag"] != tag)
        #expect(text(changed) == "body { margin: 1 }")
    }

    @Test("A FIFO under the root is refused at once, not waited on for a writer that never comes")
    func fifoRefused() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let fifo = directory.root.appendingPathComponent("pipe.js").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let files = try StaticFiles(root: directory.root.path)
        let results = Threads.run(1, limit: .seconds(5)) { _ in
            files.response(for: HTTPRequest(method: .get, path: "/pipe.js")) == nil
        }
        if case .failure = results[0] {
            // The reader still waits in `open`: a writer's open lets it go, so the thread ends.
            let writer = open(fifo, O_WRONLY)
            if writer >= 0 { close(writer) }
        }
        try #require((try? results[0].get()) == true, "a worker thread waited on the FIFO")
        #expect(!files.serves("/pipe.js"))
    }

    @Test("A file rewritten in place with its size and modification time kept is read again")
    func rewriteKeepingTimes() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let files = try StaticFiles(root: directory.root.path)
        let path = directory.root.appendingPathComponent("styles.css").path
        // What `cp -p`, `tar x` or a reproducible build (every mtime the same) leaves behind.
        let kept: [FileAttributeKey: Any] = [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)]
        try FileManager.default.setAttributes(kept, ofItemAtPath: path)
        #expect(text(files.response(for: HTTPRequest(method: .get, path: "/styles.css"))) == "body { margin: 0 }")
        // The status change time is kept at a clock tick's resolution: let one pass.
        Thread.sleep(forTimeInterval: 0.05)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("body { margin: 9 }".utf8))
        try handle.close()
        try FileManager.default.setAttributes(kept, ofItemAtPath: path)
        #expect(text(files.response(for: HTTPRequest(method: .get, path: "/styles.css"))) == "body { margin: 9 }")
    }

    /// A dot directory under the root is where the server lets the data directory, a TLS key
    /// and an admin token file be (`Options.servedDataRefusal`): a link may not lead there.
    @Test("A link into a dot file or dot directory under the root is refused as a dot path is")
    func linkIntoDotPath() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        let root = directory.root.path
        try FileManager.default.createDirectory(atPath: root + "/.data", withIntermediateDirectories: true)
        try Data("SESSIONS".utf8).write(to: URL(fileURLWithPath: root + "/.data/sessions.sqlite3"))
        try FileManager.default.createSymbolicLink(atPath: root + "/db", withDestinationPath: ".data")
        try FileManager.default.createSymbolicLink(atPath: root + "/env.txt", withDestinationPath: ".env")
        #expect(try serve("/db/sessions.sqlite3", in: directory) == nil)
        #expect(try serve("/env.txt", in: directory) == nil)
        #expect(text(try serve("/link-in.html", in: directory)) == "<!doctype html><title>Home</title>")
    }

    @Test("A root that is missing or not a directory is refused at start")
    func badRoot() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        #expect(throws: StaticFilesError.notADirectory("/no/such/dir")) { try StaticFiles(root: "/no/such/dir") }
        let file = directory.root.appendingPathComponent("index.html").path
        #expect(throws: StaticFilesError.notADirectory(file)) { try StaticFiles(root: file) }
    }
}
