import Foundation
import Testing

/// The public directory is served to anyone, without a token: a data directory inside it
/// (`--public-dir .` beside the default `./data`) served the session database and its log,
/// every session's screens, params and token digest, as `GET /data/sessions.sqlite3-wal`.
/// The server refuses that pair at start, as any setting it cannot use.
@Suite("A data directory under the public one")
struct ServedDataDirectoryTests {
    @Test(
        "A durable server whose public directory holds its data directory is refused at start, naming both",
        arguments: ["data", ""])
    func refused(dataUnderPublic: String) throws {
        let data = DataDirectory()
        let publicRoot = data.path
        try FileManager.default.createDirectory(atPath: publicRoot, withIntermediateDirectories: true)
        let dataPath = dataUnderPublic.isEmpty ? publicRoot : publicRoot + "/" + dataUnderPublic
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "sqlite", "--data-dir", dataPath, "--public-dir", publicRoot,
        ])
        guard exited else {
            let port = try server.port()
            let served = try Curl.run([
                "-s", "-o", "/dev/null", "-w", "%{http_code}",
                "http://127.0.0.1:\(port)/\(dataUnderPublic.isEmpty ? "" : dataUnderPublic + "/")sessions.sqlite3",
            ])
            _ = try server.terminate()
            Issue.record("the server started, and served its database with \(served)")
            return
        }
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains("--public-dir"), "stderr: \(server.errorOutput)")
        #expect(server.errorOutput.contains("--data-dir"), "stderr: \(server.errorOutput)")
    }

    /// The refusal came after the store had opened the directory: it made the database and
    /// the lock file there, and in a directory already in use it would have removed expired
    /// sessions and folded the log, all for a server that then did not start.
    @Test("A refused start leaves an existing data directory as it found it")
    func refusedStartTouchesNothing() throws {
        let data = DataDirectory()
        let dataPath = data.path + "/data"
        try FileManager.default.createDirectory(atPath: dataPath, withIntermediateDirectories: true)
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "sqlite", "--data-dir", dataPath, "--public-dir", data.path,
        ])
        guard exited else {
            _ = try server.terminate()
            Issue.record("the server started")
            return
        }
        #expect(server.process.terminationStatus == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dataPath) == [])
    }

    /// A data directory not made yet was judged only once the store had made it: the start was
    /// refused, but only after it had made the directory, the database and the lock file inside
    /// the public one, where the next start, its settings put right, served them to anyone.
    @Test(
        "A refused start makes no data directory under the public one",
        arguments: ["data", "new/data", "new/../data"])
    func refusedStartMakesNothing(dataUnderPublic: String) throws {
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "sqlite", "--data-dir", data.path + "/" + dataUnderPublic,
            "--public-dir", data.path,
        ])
        guard exited else {
            _ = try server.terminate()
            Issue.record("the server started")
            return
        }
        #expect(server.process.terminationStatus == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path) == [])
    }

    /// A path with a segment beginning with a dot is never served: no conflict either.
    @Test("A data directory hidden under the public one (.data) starts the server, and is not served")
    func hiddenStarts() throws {
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "sqlite", "--data-dir", data.path + "/.data", "--public-dir", data.path,
        ])
        #expect(!exited, "stderr: \(server.errorOutput)")
        guard !exited else { return }
        let served = try Curl.run([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(try server.port())/.data/sessions.sqlite3",
        ])
        #expect(served == "404")
        #expect(try server.terminate() == 0)
    }

    /// In memory there is no database to serve: the same directories are no conflict.
    @Test("In memory the same directories start the server")
    func memoryStarts() throws {
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path + "/data", withIntermediateDirectories: true)
        let (server, exited) = try ServerProcess.startOrExit(arguments: [
            "--port", "0", "--storage", "memory", "--data-dir", data.path + "/data", "--public-dir", data.path,
        ])
        #expect(!exited, "stderr: \(server.errorOutput)")
        if !exited { #expect(try server.terminate() == 0) }
    }
}
