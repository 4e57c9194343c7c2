import Foundation
import Testing

/// A file of the page asked for while clients held every descriptor the process may open
/// was answered 404 `not_found`: the failed `open` (EMFILE) was taken for a missing file, so
/// browsers and caches were told the page was gone when the server was only full. A file that
/// is there but cannot be read now is 503 `file_unavailable` with `Retry-After`; one read
/// before is served from memory, as its `lstat` needs no descriptor.
@Suite("Static files when no descriptor is left")
struct StaticFileDescriptorTests {
    @Test("Out of descriptors: a file read before is served, one never read is 503 file_unavailable, a missing one 404")
    func outOfDescriptors() throws {
        let directory = try PublicDirectory()
        defer { directory.remove() }
        // An explicit limit past what `nofile` leaves room for (warned about at start): clients
        // can take every descriptor.
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--max-connections", "1000", "--public-dir", directory.root.path],
            through: ["prlimit", "--nofile=64"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let read = try client.get("/styles.css")
        #expect(read.status == 200)

        // Files never read, one for each look: a file read once is served from memory after,
        // so looking with one file for the moment no descriptor is left would never see it.
        for index in 0..<100 { try directory.write("probe-\(index).txt", "probe") }
        var holders: [HTTPConnection] = []
        for _ in 0..<100 { holders.append(try HTTPConnection(port: port)) }
        // Until the server has accepted what it can: by then no descriptor is left.
        var probe = 0
        while probe < 99, try client.get("/probe-\(probe).txt").status == 200 {
            probe += 1
            Thread.sleep(forTimeInterval: 0.1)
        }
        let unread = try client.get("/notes.txt")
        #expect(unread.status == 503, "still serving after \(probe) looks")
        #expect(unread.header("Content-Type") == "application/problem+json")
        #expect(unread.header("Retry-After") == "1")
        #expect(try unread.json()["code"] as? String == "file_unavailable")

        let again = try client.get("/styles.css")
        #expect(again.status == 200)
        #expect(again.text == read.text)
        #expect(again.header("ETag") == read.header("ETag"))
        let missing = try client.get("/missing.txt")
        #expect(missing.status == 404)
        #expect(try missing.json()["code"] as? String == "not_found")
        // A method other than GET on a file there: 405 still, not 404.
        #expect(try client.request("DELETE", "/notes.txt").status == 405)

        holders.removeAll()
        let recovered = Date.now.addingTimeInterval(10)
        var later = try client.get("/notes.txt")
        while later.status != 200, Date.now < recovered {
            Thread.sleep(forTimeInterval: 0.1)
            later = try client.get("/notes.txt")
        }
        #expect(later.status == 200)
        #expect(later.text == "plain")
        #expect(try server.terminate() == 0)
    }
}
