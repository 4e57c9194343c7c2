import Foundation
import Synchronization
import Testing

/// Crashes and restarts of the real binary with durable storage: nothing acknowledged is lost.
@Suite("Durable sessions")
struct DurabilityTests {
    /// What one client knows of one of its sessions.
    struct Tracked: Sendable {
        let session: CreatedSession
        /// The revision of the last 200 it got.
        var acknowledged: Int
        /// The revision its last request would make, answered or not.
        var attempted: Int
    }

    /// The screen names of the root stack at `revision` under the script `mutation(after:)` follows.
    static func expectedPath(at revision: Int) -> [String] {
        var path = ["inbox"]
        var current = 1
        while current < revision {
            if current % 8 == 0 { path = ["inbox"] } else { path.append("r\(current + 1)") }
            current += 1
        }
        return path
    }

    /// The change that takes a session from `revision` to the next: a push, or every eighth a pop to root.
    static func mutation(after revision: Int) -> (operation: String, json: Any?) {
        revision % 8 == 0 ? ("pop-to-root", nil) : ("push", ["screen": "r\(revision + 1)", "params": ["n": revision + 1]])
    }

    /// Reads every tracked session back and checks it holds at least what was acknowledged, at most
    /// what was attempted, and exactly the tree and events of its revision; returns them re-based.
    static func verify(_ tracked: [Tracked], port: UInt16) throws -> [Tracked] {
        let client = try HTTPConnection(port: port)
        return try tracked.map { entry in
            let body = try client.fetch(entry.session)
            let revision = try #require(body["revision"] as? Int)
            #expect(
                (entry.acknowledged...entry.attempted).contains(revision),
                "session \(entry.session.id): revision \(revision), acknowledged \(entry.acknowledged), attempted \(entry.attempted)")
            #expect(body.rootPathNames == expectedPath(at: revision), "session \(entry.session.id) at revision \(revision)")
            let events = try client.events(of: entry.session)
            #expect(events.last?["revision"] as? Int == revision)
            return Tracked(session: entry.session, acknowledged: revision, attempted: revision)
        }
    }

    @Test("kill -9 under concurrent load, several rounds: every acknowledged change and creation survives")
    func crashRounds() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer(["--threads", "8"])
        let setup = try HTTPConnection(port: port)
        var tracked = try (0..<12).map { _ in
            Tracked(session: try setup.createSession(), acknowledged: 1, attempted: 1)
        }
        for round in 0..<3 {
            let shared = Mutex(tracked)
            let created = Mutex<[Tracked]>([])
            let unexpected = Mutex<[String]>([])
            let clients = 6
            let finished = Atomic<Int>(0)
            let roundPort = port
            for client in 0..<clients {
                let thread = Thread {
                    defer { finished.add(1, ordering: .releasing) }
                    guard let connection = try? HTTPConnection(port: roundPort) else { return }
                    let owned = Array(stride(from: client, to: 12, by: clients))
                    var step = 0
                    while true {
                        step += 1
                        if step % 15 == 0 {
                            // A creation acknowledged now must exist after the crash.
                            guard let session = try? connection.createSession() else { return }
                            created.withLock { $0.append(Tracked(session: session, acknowledged: 1, attempted: 1)) }
                            continue
                        }
                        let index = owned[step % owned.count]
                        let entry = shared.withLock { tracked -> Tracked in
                            tracked[index].attempted = tracked[index].acknowledged + 1
                            return tracked[index]
                        }
                        let (operation, json) = Self.mutation(after: entry.acknowledged)
                        guard let response = try? connection.post(operation, to: entry.session, json: json) else { return }
                        guard response.status == 200, let revision = try? response.json()["revision"] as? Int else {
                            unexpected.withLock { $0.append("\(response.status) \(response.text)") }
                            return
                        }
                        shared.withLock { $0[index].acknowledged = revision }
                    }
                }
                thread.start()
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0.3...1.0))
            server.crash()
            while finished.load(ordering: .acquiring) < clients { Thread.sleep(forTimeInterval: 0.01) }
            #expect(unexpected.withLock { $0 }.isEmpty, "round \(round): \(unexpected.withLock { $0 })")
            let mutated = shared.withLock { $0 }
            #expect(
                zip(mutated, tracked).contains { $0.acknowledged > $1.acknowledged },
                "round \(round) made no change before the crash")
            (server, port) = try data.startServer(["--threads", "8"])
            tracked = try Self.verify(mutated, port: port)
            _ = try Self.verify(created.withLock { $0 }, port: port)
        }
        #expect(try server.terminate() == 0)
    }

    @Test("A clean restart brings back every session as it was: same ids, same tokens, same answers")
    func cleanRestart() throws {
        let data = DataDirectory()
        var (server, port) = try data.startServer()
        var client = try HTTPConnection(port: port)
        var sessions: [CreatedSession] = []
        for index in 0..<4 {
            let session = try client.createSession(root: ["screen": "inbox", "params": ["user": index]])
            _ = try client.post("push", to: session, json: ["screen": "message", "title": "Hello ✉︎"])
            _ = try client.post("present", to: session, json: ["style": "sheet", "screen": "compose"])
            _ = try client.post("dismiss", to: session, json: ["result": ["sent": true, "n": 1.50]])
            if index % 2 == 0 {
                _ = try client.post(
                    "present", to: session,
                    json: ["style": "alert", "alert": ["title": "Sure?", "actions": [["id": "ok", "title": "OK"]]]])
            }
            sessions.append(session)
        }
        let before = try sessions.map { try client.get($0.route(), token: $0.token).body }
        let eventsBefore = try sessions.map { try client.get($0.route("events"), token: $0.token).body }
        #expect(try server.terminate() == 0)

        (server, port) = try data.startServer([], accessLog: true)
        client = try HTTPConnection(port: port)
        #expect(try sessions.map { try client.get($0.route(), token: $0.token).body } == before)
        #expect(try sessions.map { try client.get($0.route("events"), token: $0.token).body } == eventsBefore)
        let presentation = try client.get(sessions[0].route("presentations/p4"), token: sessions[0].token)
        #expect(try presentation.json()["status"] as? String == "dismissed")
        // A rotated token is durable too: after another restart only the new one opens the session.
        let rotated = try client.request("POST", sessions[1].route("token"), token: sessions[1].token, body: [])
        let fresh = try #require(try rotated.json()["token"] as? String)
        #expect(try server.terminate() == 0)
        let loaded = server
        (server, port) = try data.startServer([], accessLog: true)
        client = try HTTPConnection(port: port)
        #expect(try client.get(sessions[1].route(), token: fresh).body == before[1])
        try client.get(sessions[1].route(), token: sessions[1].token).expectProblem(401, "unauthorized")
        #expect(try server.terminate() == 0)
        server = loaded
        let storage = server.logLines().first { $0["event"] as? String == "storage" }
        #expect(storage?["sessions_loaded"] as? Int == 4)
        #expect(storage?["kind"] as? String == "sqlite")
    }

    /// Ways a database file gets damaged, each applied to a file with sessions in it.
    static let damages: [(name: String, damage: @Sendable (String) throws -> Void)] = [
        ("truncated to half", { path in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            let size = try handle.seekToEnd()
            try handle.truncate(atOffset: size / 2)
            try handle.close()
        }),
        ("a page overwritten", { path in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 4096 + 8)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 2000))
            try handle.close()
        }),
        ("its header overwritten", { path in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: Data("this is no database".utf8))
            try handle.close()
        }),
    ]

    /// A data directory after `kill -9` with 40 sessions created and changed, every change in
    /// SQLite's write-ahead log (a frame a page), nothing checkpointed; the log's path and size.
    static func crashedWithLog(_ data: DataDirectory) throws -> (log: String, frames: Int) {
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        for _ in 0..<40 {
            let session = try client.createSession(root: ["screen": "inbox", "params": ["pad": String(repeating: "p", count: 400)]])
            #expect(try client.post("push", to: session, json: ["screen": "next"]).status == 200)
        }
        server.crash()
        let log = data.databasePath + "-wal"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        return (log, (size - 32) / (24 + 4096))
    }

    /// `byte` of `path` turned over.
    static func flip(_ path: String, at byte: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(byte))
        let old = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(byte))
        try handle.write(contentsOf: Data([~old]))
        try handle.close()
    }

    /// SQLite takes a log to end at its first frame that fails its checksum, as a write torn
    /// by a crash would; a frame damaged in mid-log then silently lost every acknowledged
    /// change after it (21 of 30 sessions came back behind or missing), and a damaged header all of them.
    @Test(
        "A write-ahead log damaged before its last transaction stops start-up naming the log",
        arguments: ["a frame in mid-log", "the log's header"])
    func damagedLog(place: String) throws {
        let data = DataDirectory()
        let (log, frames) = try Self.crashedWithLog(data)
        try #require(frames > 30, "the changes are in the log")
        try Self.flip(log, at: place == "the log's header" ? 17 : 32 + frames / 3 * (24 + 4096) + 24 + 100)
        let refusal = try data.refusal()
        #expect(refusal.status == 1, "\(place): the server must not start without the writes after the damage")
        #expect(refusal.errors.contains("write-ahead log \(log) is damaged"), "\(place): \(refusal.errors)")
        #expect(refusal.errors.contains("committed transactions follow"), "\(place): \(refusal.errors)")
    }

    /// Without its log, SQLite opens the database file as of the last checkpoint: every change
    /// since was gone (0 of 10 sessions came back) and the server started. The log's index
    /// (`-shm`), left beside it, still says how many frames the log held past the checkpoint.
    @Test("A write-ahead log gone while its index says it held changes stops start-up; both gone starts from the file")
    func missingLog() throws {
        let data = DataDirectory()
        let (log, frames) = try Self.crashedWithLog(data)
        try #require(frames > 30, "the changes are in the log")
        try FileManager.default.moveItem(atPath: log, toPath: log + ".away")
        let refusal = try data.refusal()
        #expect(refusal.status == 1, "the server must not start without the log's writes")
        #expect(refusal.errors.contains("write-ahead log \(log) is missing"), "\(refusal.errors)")
        #expect(refusal.errors.contains("\(frames) frames"), "\(refusal.errors)")
        // Put back, everything is there.
        try FileManager.default.moveItem(atPath: log + ".away", toPath: log)
        guard let (server, _) = data.restartServer(after: "the log was put back") else { return }
        let loaded = server.logLines().first { $0["event"] as? String == "storage" }?["sessions_loaded"] as? Int
        #expect(loaded == 40, "\(server.output)")
        server.crash()
        // The README's way to start from the database file alone (a backup copied in): both removed.
        try FileManager.default.removeItem(atPath: log)
        try FileManager.default.removeItem(atPath: data.databasePath + "-shm")
        guard let (fresh, _) = data.restartServer(after: "the log and its index were removed") else { return }
        #expect(try fresh.terminate() == 0)
    }

    /// The other side of `damagedLog`: a log whose last frame was cut short, as a crash in the
    /// middle of a write leaves it, is read up to there, as SQLite reads it.
    @Test("A write-ahead log whose last frame is torn starts with everything before it")
    func tornLogTail() throws {
        let data = DataDirectory()
        let (log, frames) = try Self.crashedWithLog(data)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try handle.truncate(atOffset: UInt64(32 + (frames - 1) * (24 + 4096) + 2000))
        try handle.close()
        guard let (server, _) = data.restartServer(after: "the log's last frame was torn") else { return }
        let loaded = server.logLines().first { $0["event"] as? String == "storage" }?["sessions_loaded"] as? Int
        #expect((39...40).contains(loaded ?? 0), "\(server.output)")
        #expect(try server.terminate() == 0)
    }

    /// A transaction SQLite wrote to the log, commit frame included, then failed (its index
    /// could not grow on a full disk: the client got 503) leaves its frames past the log's end;
    /// the next, shorter transaction overwrites only their start. What is left (the failed
    /// transaction's last frames, chained among themselves, its commit frame last) is what two
    /// of the log's own frames copied past its end look like. After kill -9 then, the server
    /// refused to start ("1 committed transaction follow"), though nothing acknowledged was lost.
    @Test("A failed transaction's frames left past the log's end, as after a full disk, do not stop start-up")
    func failedTransactionPastLogEnd() throws {
        let data = DataDirectory()
        let (log, frames) = try Self.crashedWithLog(data)
        let frameSize = 24 + 4096
        var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        bytes = bytes.prefix(32 + frames * frameSize)
        func isCommit(_ frame: Int) -> Bool { bytes[32 + frame * frameSize + 4..<32 + frame * frameSize + 8] != Data(count: 4) }
        let tail = try #require((1..<frames - 1).first { !isCommit($0) && isCommit($0 + 1) }, "a transaction of two frames or more")
        bytes.append(bytes[(32 + tail * frameSize)..<(32 + (tail + 2) * frameSize)])
        try bytes.write(to: URL(fileURLWithPath: log))
        guard let (server, _) = data.restartServer(after: "a failed transaction's frames were left past the log's end") else { return }
        let loaded = server.logLines().first { $0["event"] as? String == "storage" }?["sessions_loaded"] as? Int
        #expect(loaded == 40, "\(server.output)")
        #expect(try server.terminate() == 0)
    }

    @Test("The journal's threads carry their names for top -H, ps -L and perf")
    func threadNames() throws {
        let data = DataDirectory()
        let (server, _) = try data.startServer()
        let tasks = "/proc/\(server.process.processIdentifier)/task"
        func names() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
                try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
            }
        }
        // Waited for: each thread names itself once it runs (DeepTreeThread.detach), which
        // nothing orders before the listening line the start waited for.
        #expect(try eventually { try names().contains("session-journal") }, "\((try? names()) ?? [])")
        #expect(try eventually { try names().contains("session-sync") }, "\((try? names()) ?? [])")
        #expect(try server.terminate() == 0)
    }

    @Test("A data directory that does not exist is made, parents too; one that cannot be is refused with why")
    func dataDirectoryCreated() throws {
        let base = DataDirectory()
        let nested = base.path + "/a/b/data"
        let server = try ServerProcess.start(arguments: ["--port", "0", "--storage", "sqlite", "--data-dir", nested])
        let client = try HTTPConnection(port: UInt16(try server.port()))
        _ = try client.createSession()
        #expect(try server.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: nested + "/sessions.sqlite3"))

        // A file where a directory must be.
        let blocker = base.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let refused = try ServerProcess.run(["--port", "0", "--storage", "sqlite", "--data-dir", blocker + "/data", "--access-log", "off"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("cannot create the data directory"), "\(refused.errors)")
        #expect(refused.errors.contains("Not a directory") || refused.errors.contains("not a directory"), "\(refused.errors)")
        let plain = try ServerProcess.run(["--port", "0", "--storage", "sqlite", "--data-dir", blocker, "--access-log", "off"])
        #expect(plain.status == 1)
        #expect(plain.errors.contains("\(blocker): not a directory"), "\(plain.errors)")
    }

    @Test("A second server on a data directory in use exits 1 naming the first, which goes on serving")
    func directoryInUse() throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        let refusal = try data.refusal()
        #expect(refusal.status == 1, "a second server must not start on the same directory")
        #expect(refusal.errors.contains("in use"), "\(refusal.errors)")
        #expect(refusal.errors.contains("process \(server.process.processIdentifier)"), "\(refusal.errors)")
        // The refused server touched nothing: the first still writes, and a restart reads its writes back.
        #expect(try client.post("push", to: session, json: ["screen": "next"]).status == 200)
        #expect(try server.terminate() == 0)
        let (restarted, newPort) = try data.startServer()
        let after = try HTTPConnection(port: newPort).get(session.route(), token: session.token)
        #expect(after.status == 200)
        #expect(try after.json()["revision"] as? Int == 2)
        #expect(try restarted.terminate() == 0)
    }

    @Test("A lock file that cannot be opened stops start-up with a message naming the lock file, not the database")
    func unopenableLockFile() throws {
        let data = DataDirectory()
        // A directory where the lock file goes: open(2) fails with EISDIR, even for root.
        try FileManager.default.createDirectory(atPath: data.path + "/sessions.lock", withIntermediateDirectories: true)
        let refusal = try data.refusal()
        #expect(refusal.status == 1)
        #expect(refusal.errors.contains("cannot open \(data.path)/sessions.lock: cannot open the lock file"), "\(refusal.errors)")
        #expect(!refusal.errors.contains("session database"), "\(refusal.errors)")
    }

    @Test("A damaged database file stops start-up with a clear message and a non-zero exit", arguments: 0..<3)
    func damagedFile(index: Int) throws {
        let data = DataDirectory()
        let (server, port) = try data.startServer()
        let client = try HTTPConnection(port: port)
        for _ in 0..<40 {
            let session = try client.createSession(root: ["screen": "inbox", "params": ["pad": String(repeating: "p", count: 400)]])
            _ = try client.post("push", to: session, json: ["screen": "next"])
        }
        #expect(try server.terminate() == 0)
        try Self.damages[index].damage(data.databasePath)
        let refusal = try data.refusal()
        #expect(refusal.status == 1, "\(Self.damages[index].name): the server must not start")
        #expect(refusal.errors.contains("corrupt"), "\(Self.damages[index].name): \(refusal.errors)")
        #expect(refusal.errors.contains(data.databasePath))
    }
}
