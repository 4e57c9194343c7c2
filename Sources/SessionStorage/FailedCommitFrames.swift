#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The frames a failed commit left in the write-ahead log, past the end SQLite's index gives,
/// cut off from what SQLite's recovery reads.
///
/// SQLite writes a transaction's frames, commit frame included, before it adds them to the
/// log's index (`-shm`); when the index cannot take them (it grows a region every 4,096
/// frames, which a full disk refuses) the commit fails and the server refuses the change, but
/// the frames stay, chained and valid. This process never reads them (its index ends before
/// them) and its next commit writes over them; but a crash before that has SQLite's recovery
/// rebuild the index from the log, frame by frame, and take the failed transaction as
/// committed: a change answered `storage_failed` was there after the restart. Recovery stops
/// at the first frame whose salts are not the log's, so changing the first frame's salts
/// cuts off the whole failed transaction. The frame was written, so its blocks are there:
/// the write takes no new room on a full disk.
enum FailedCommitFrames {
    /// After a failed commit, on the thread that writes SQLite: makes the first frame past the
    /// index's end unreadable to recovery when it is of this log. 0 when done or nothing is to
    /// be done (no log, no index of this log, no frame there); else the `errno` of the failure.
    /// The index is read where `connection` has it mapped, never opened here: closing a
    /// descriptor of it would release SQLite's locks on it (`SQLiteConnection.walIndex`).
    static func cutOff(of connection: SQLiteConnection) -> Int32 {
        guard let path = connection.walPath else { return 0 }
        let log = open(path, O_RDWR | O_CLOEXEC)
        guard log >= 0 else { return errno == ENOENT ? 0 : errno }
        defer { close(log) }
        guard let header = read(log, count: WALCheck.headerSize, at: 0), let index = connection.walIndex(count: 96) else {
            return 0
        }
        let salts = Array(header[16..<24])
        let pageSize = Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11])
        guard (512...65_536).contains(pageSize), let end = WALCheck.committedFrames(index: index, salts: salts) else {
            return 0
        }
        let offset = WALCheck.headerSize + end * (WALCheck.frameHeaderSize + pageSize)
        // A frame of an earlier log (other salts), or none: recovery stops there already.
        guard let frame = read(log, count: WALCheck.frameHeaderSize, at: offset), Array(frame[8..<16]) == salts else {
            return 0
        }
        let changed = salts.map { ~$0 }
        let written = changed.withUnsafeBytes { pwrite(log, $0.baseAddress, $0.count, off_t(offset + 8)) }
        return written == changed.count ? 0 : (written < 0 ? errno : EIO)
    }

    /// `count` bytes of the file at `offset`; nil when it holds fewer.
    private static func read(_ descriptor: Int32, count: Int, at offset: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return got == count ? bytes : nil
    }
}
