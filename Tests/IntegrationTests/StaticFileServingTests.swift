import Testing

/// The real server serving a directory: requests written raw on a socket, since curl and
/// URL types tidy `..` away before sending.
@Suite("Static files over HTTP")
struct StaticFileServingTests {
    @Test("GET / is the index page with its headers; HEAD has the same headers and no body")
    func indexOverHTTP() throws {
        try withPublicServer { port, _ in
            let client = try HTTPConnection(port: port)
            let page = try client.get("/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
            #expect(page.text == "<!doctype html><title>Home</title>")
            let head = try client.request("HEAD", "/")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("ETag") == page.header("ETag"))
            #expect(head.header("Content-Length") == String(page.body.count))
            let cached = try client.get("/", headers: [("If-None-Match", page.header("ETag") ?? "")])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            // RFC 9110 8.6: a 304's Content-Length, when sent, is the 200's.
            #expect(cached.header("Content-Length") == String(page.body.count))
            #expect(cached.header("Content-Type") == nil)
            #expect(!client.isClosed)
            // The connection still frames the next answer right: the 304 sent no body.
            #expect(try client.get("/").text == page.text)
        }
    }

    @Test(
        "Traversal sent raw on the wire is a 404 problem and never the file outside",
        arguments: [
            "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt",
            "/js/%2e%2e/%2e%2e/secret.txt", "/js/../../secret.txt", "/..%5csecret.txt", "/link-out.txt",
            "/relative-out.txt", "/dir-out/secret.txt", "//secret.txt", "/%2Fsecret.txt", "/.env", "/%2eenv",
            "/js/%2e/app.js",
        ])
    func traversal(target: String) throws {
        try withPublicServer { port, _ in
            let client = try HTTPConnection(port: port)
            let response = try client.get(target)
            #expect(!response.text.contains(PublicDirectory.secret))
            #expect(!response.text.contains("HIDDEN"))
            if response.status == 404 {
                response.expectProblem(404, "not_found")
            } else {
                // libmicrohttpd may refuse a malformed target itself; anything but a file is fine.
                #expect(response.status == 400, "\(target) answered \(response.status)")
            }
        }
    }

    @Test("An unknown file is the API's 404 problem; API routes still answer as before")
    func unknownFile() throws {
        try withPublicServer { port, _ in
            let client = try HTTPConnection(port: port)
            try client.get("/missing.js").expectProblem(404, "not_found")
            // Files answer GET and HEAD only; another method is 405, as on an API route
            // (schemathesis's unsupported_method check found the 404 this used to be).
            let post = try client.post("/index.html", json: [:] as [String: Any])
            post.expectProblem(405, "method_not_allowed")
            #expect(post.header("Allow") == "GET, HEAD, OPTIONS")
            let options = try client.request("OPTIONS", "/index.html")
            #expect(options.status == 204)
            #expect(options.header("Allow") == "GET, HEAD, OPTIONS")
            try client.request("DELETE", "/missing.js").expectProblem(404, "not_found")
            let health = try client.get("/healthz")
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
        }
    }
}
