import Foundation
import Testing

@testable import SessionStorage

/// A file's fsync makes its bytes durable, not its name: the directories that gained a new
/// entry are synced too, before the journal can acknowledge a write.
@Suite("Syncing the data directory")
struct DirectorySyncTests {
    /// What a directory sync saw: the directory, and which of the database's files were in it then.
    struct SyncedDirectory: Equatable {
        let path: String
        let entries: Set<String>
    }

    /// Runs `open` with a directory sync that records each call, answering `failure` to the
    /// call whose directory is `failing`.
    static func recordingOpen(
        directory: String, failing: String? = nil, failure: Int32 = EIO
    ) -> (synced: [SyncedDirectory], result: Result<SessionDatabase.Recovery, StorageOpenError>) {
        var synced: [SyncedDirectory] = []
        let files = [SessionDatabase.fileName, SessionDatabase.fileName + "-wal"]
        let result = Result { () throws(StorageOpenError) in
            try SessionDatabase.open(
                directory: directory, limits: .default, now: StorageFixture.start, sync: { $0.sync() },
                directorySync: { path in
                    let present = files.filter { FileManager.default.fileExists(atPath: path + "/" + $0) }
                    synced.append(SyncedDirectory(path: path, entries: Set(present)))
                    return path == failing ? failure : 0
                })
        }
        return (synced, result)
    }

    @Test("A data directory made at start has each directory made synced in its parent, then its files synced in it")
    func madeDirectory() throws {
        let root = StorageFixture.directory()
        defer { StorageFixture.remove(root) }
        let directory = root + "/var/data"
        let (synced, result) = Self.recordingOpen(directory: directory)
        try result.get().journal.close()
        let files: Set = [SessionDatabase.fileName, SessionDatabase.fileName + "-wal"]
        #expect(
            synced == [
                SyncedDirectory(path: root, entries: []), SyncedDirectory(path: root + "/var", entries: []),
                SyncedDirectory(path: directory, entries: files),
            ])
    }

    @Test("A data directory that exists has only itself synced, once its database and log are in it")
    func existingDirectory() throws {
        let directory = StorageFixture.directory()
        defer { StorageFixture.remove(directory) }
        let (synced, result) = Self.recordingOpen(directory: directory)
        try result.get().journal.close()
        #expect(
            synced == [
                SyncedDirectory(path: directory, entries: [SessionDatabase.fileName, SessionDatabase.fileName + "-wal"])
            ])
    }

    @Test("A database file that is a symbolic link has the directory of its target synced, where SQLite keeps the log")
    func linkedDatabase() throws {
        let root = StorageFixture.directory()
        defer { StorageFixture.remove(root) }
        let (directory, elsewhere) = try StorageFixture.linkedDatabase(in: root)
        let (synced, result) = Self.recordingOpen(directory: directory)
        try result.get().journal.close()
        #expect(synced.map(\.path) == [elsewhere])
        #expect(synced.first?.entries == [SessionDatabase.fileName, SessionDatabase.fileName + "-wal"])
    }

    @Test("A directory that cannot be synced refuses the start, naming the directory and the system's reason")
    func failedSync() throws {
        let root = StorageFixture.directory()
        defer { StorageFixture.remove(root) }
        for failing in [root, root + "/data"] {
            let directory = root + "/data"
            StorageFixture.remove(directory)
            let (_, result) = Self.recordingOpen(directory: directory, failing: failing)
            guard case .failure(.cannotOpen(_, let reason)) = result else {
                Issue.record("opened although \(failing) could not be synced: \(result)")
                if case .success(let recovery) = result { recovery.journal.close() }
                continue
            }
            #expect(reason.contains(failing) && reason.contains(String(cString: strerror(EIO))), "\(reason)")
        }
    }
}
