import Foundation
import Testing

/// A data directory removed (or its files moved away) under a running server: SQLite goes on
/// writing to the files it holds open, which no longer have a name, and a restart finds
/// none of it. Answered 2xx, such a change is a promise the disk cannot keep.
@Suite("A data directory removed while the server runs")
struct DeletedDataDirectoryTests {
    @Test("Changes are refused with storage_failed, not acknowledged, and health fails; the stop exits 1")
    func removedDirectoryStopsWrites() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try HTTPConnection(port: port)
        let session = try client.createSessionWithDetail()

        try FileManager.default.removeItem(atPath: data.path)
        try client.post("push", to: session, json: ["screen": "lost"]).expectProblem(503, "storage_failed")
        try client.post("/v1/sessions", json: ["root": ["screen": "inbox"]]).expectProblem(503, "storage_failed")
        #expect(try client.get(session.route(), token: session.token).expectSession(revision: 2).rootPathNames == ["inbox", "detail"])
        try client.get("/healthz").expectProblem(503, "storage_failed")

        #expect(try server.terminate() == 1, "a stop after the files were removed exited as a clean one")
        server.expectStoppedWithError(naming: "durable writes had stopped")
    }

    @Test("The database's files moved away (a backup put in their place while it runs) stop writes as well")
    func movedFilesStopWrites() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let client = try HTTPConnection(port: port)
        let session = try client.createSessionWithDetail()

        let aside = data.path + "-aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: aside) }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.moveItem(atPath: data.databasePath + suffix, toPath: aside + "/sessions.sqlite3" + suffix)
        }
        try client.post("push", to: session, json: ["screen": "lost"]).expectProblem(503, "storage_failed")
        try client.get("/healthz").expectProblem(503, "storage_failed")
        #expect(try server.terminate() == 1)
    }
}
