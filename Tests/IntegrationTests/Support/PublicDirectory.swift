import Foundation
import MicroHTTP
import Presentation
import PresentationAPI

/// A throwaway directory tree to serve: a few pages and assets, links that stay inside,
/// links that point out, and a secret beside the root that must never be served.
struct PublicDirectory {
    /// Holds `public/` (the root served) and `secret.txt` (outside it).
    let base: URL
    var root: URL { base.appendingPathComponent("public") }
    static let secret = "SECRET-OUTSIDE-THE-ROOT"

    init() throws {
        base = FileManager.default.temporaryDirectory
            .appendingPathComponent("public-\(UUID().uuidString)", isDirectory: true)
        let files: [(String, String)] = [
            ("public/index.html", "<!doctype html><title>Home</title>"),
            ("public/styles.css", "body { margin: 0 }"),
            ("public/js/app.js", "export const answer = 42;"),
            ("public/data.json", "{\"ok\": true}"),
            ("public/icon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
            ("public/docs/index.html", "<!doctype html><title>Docs</title>"),
            ("public/notes.txt", "plain"),
            ("public/image.PNG", "png"),
            ("public/favicon.ico", "ico"),
            ("public/openapi.yaml", "openapi: 3.1.0"),
            ("public/js/app.js.map", "{}"),
            ("public/blob.bin", "bytes"),
            ("public/.env", "HIDDEN"),
            ("secret.txt", Self.secret),
            ("outside/secret.txt", Self.secret),
        ]
        for (path, text) in files {
            let url = base.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let links: [(String, String)] = [
            ("public/link-in.html", "index.html"),
            ("public/link-out.txt", base.appendingPathComponent("secret.txt").path),
            ("public/relative-out.txt", "../secret.txt"),
            ("public/dir-out", base.appendingPathComponent("outside").path),
        ]
        for (path, destination) in links {
            try FileManager.default.createSymbolicLink(
                atPath: base.appendingPathComponent(path).path, withDestinationPath: destination)
        }
    }

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: root.appendingPathComponent(path))
    }

    func remove() {
        try? FileManager.default.removeItem(at: base)
    }
}

/// Runs `body` against the real API on a loopback port, serving a fresh `PublicDirectory`;
/// both are gone afterwards. `body` gets the port.
func withPublicServer(_ body: (UInt16, PublicDirectory) throws -> Void) throws {
    let directory = try PublicDirectory()
    defer { directory.remove() }
    let files = try StaticFiles(root: directory.root.path)
    let handler = PresentationAPI(store: InMemorySessionStore(limits: Limits()), staticFiles: files)
    let configuration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2, maxBodyBytes: 1 << 20, connectionTimeoutSeconds: 10,
        shutdownGraceSeconds: 2)
    let server = HTTPServer(configuration: configuration, handler: handler)
    let port = try server.start()
    defer { server.stop() }
    try body(port, directory)
}
