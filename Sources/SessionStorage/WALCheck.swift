#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What SQLite's recovery of a write-ahead log would drop without a word, looked for before
/// SQLite reads the log.
///
/// SQLite reads a log frame by frame, each frame's checksum chained from the one before, and
/// takes the log to end at the first frame that fails, as a write torn by a crash would: a
/// frame damaged in mid-log (or a damaged header, which makes it ignore the whole log) loses
/// every transaction after it, acknowledged or not, and the server would start without them.
/// A torn write is the last thing written: nothing committed follows it. So a committed frame
/// of the same log (its salts) past the point where SQLite would stop, whose own checksum holds
/// when chained from the frame before it, means damage, and start-up is refused.
///
/// Damage within the last transaction, or a log cut short at a frame's end, cannot be told
/// from a torn write this way: SQLite drops that transaction.
///
/// Nor are committed frames past the end its index (`-shm`) gives, when the index is of this
/// log: SQLite never committed them. A transaction whose frames, commit frame included, were
/// written but whose index could not take them (it grows a region every 4,096 frames, which
/// a full disk refuses) failed, and the next transaction overwrites its frames from their
/// start: a shorter one leaves the failed one's last frames past the log's end, chained among
/// themselves, its commit frame last.
enum WALCheck {
    /// The log's first bytes (magic, version, page size, checkpoint, salts, checksum).
    static let headerSize = 32
    /// Each frame's header (page number, size after commit, salts, checksum).
    static let frameHeaderSize = 24
    /// SQLite's magic number; its low bit says the checksums read words big-endian.
    static let magic: UInt32 = 0x377F_0682
    static let version: UInt32 = 3_007_000

    /// What is wrong with the log at `path`, for an operator: nil when SQLite's recovery
    /// would keep every committed transaction it holds (or there is no log). `pageSize` is
    /// the database's, for a log whose header is too damaged to say.
    /// `indexPath` is its index, which says where the log ended for SQLite.
    /// The log is mapped, not read: it may hold tens of megabytes (a reader kept open holds
    /// back the checkpoint that restarts it), which read into the heap made start-up's memory
    /// spike by as much, in a container whose limit may be tight.
    static func damage(ofLogAt path: String, indexAt indexPath: String, pageSize: Int = 4096) -> String? {
        withMapped(path) { bytes in
            guard bytes.count >= headerSize else { return nil }
            return damage(in: bytes, path: path, index: contents(of: indexPath), pageSize: pageSize)
        } ?? nil
    }

    static func damage(in bytes: UnsafeRawBufferPointer, path: String, index: [UInt8]?, pageSize fallbackPageSize: Int) -> String? {
        let fileMagic = word(bytes, 0, bigEndian: true)
        let headerPageSize = Int(word(bytes, 8, bigEndian: true))
        let headerIsSound =
            fileMagic & ~1 == magic && word(bytes, 4, bigEndian: true) == version
            && (512...65_536).contains(headerPageSize) && headerPageSize & (headerPageSize - 1) == 0
            && checksum(bytes, 0..<24, from: (0, 0), bigEndian: fileMagic & 1 == 1)
                == (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true))
        let pageSize = headerIsSound ? headerPageSize : fallbackPageSize
        let frameSize = frameHeaderSize + pageSize
        let frames = (bytes.count - headerSize) / frameSize
        guard frames > 0 else { return nil }
        func offset(_ frame: Int) -> Int { headerSize + frame * frameSize }
        func salts(_ frame: Int) -> (UInt32, UInt32) {
            (word(bytes, offset(frame) + 8, bigEndian: true), word(bytes, offset(frame) + 12, bigEndian: true))
        }
        func storedChecksum(_ frame: Int) -> (UInt32, UInt32) {
            (word(bytes, offset(frame) + 16, bigEndian: true), word(bytes, offset(frame) + 20, bigEndian: true))
        }
        /// Frame `frame` is one of the log's, intact, when its checksum is chained from `previous`.
        func holds(_ frame: Int, salts expected: (UInt32, UInt32), from previous: (UInt32, UInt32), bigEndian: Bool) -> Bool {
            let start = offset(frame)
            guard word(bytes, start, bigEndian: true) != 0, salts(frame) == expected else { return false }
            let header = checksum(bytes, start..<start + 8, from: previous, bigEndian: bigEndian)
            return checksum(bytes, start + frameHeaderSize..<start + frameSize, from: header, bigEndian: bigEndian)
                == storedChecksum(frame)
        }
        func isCommit(_ frame: Int) -> Bool { word(bytes, offset(frame) + 4, bigEndian: true) != 0 }

        // Where SQLite's recovery stops: the first frame that fails, or the whole log if its header does.
        let firstDropped: Int
        let expectedSalts: (UInt32, UInt32)
        let orders: [Bool]
        if headerIsSound {
            let bigEndian = fileMagic & 1 == 1
            expectedSalts = (word(bytes, 16, bigEndian: true), word(bytes, 20, bigEndian: true))
            var chain = (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true))
            var frame = 0
            while frame < frames, holds(frame, salts: expectedSalts, from: chain, bigEndian: bigEndian) {
                chain = storedChecksum(frame)
                frame += 1
            }
            guard frame < frames else { return nil }
            firstDropped = frame
            orders = [bigEndian]
        } else {
            // The header's salts and byte order may be what was damaged: the first frame's salts
            // are the log's, and either order is tried.
            firstDropped = 0
            expectedSalts = salts(0)
            orders = [false, true]
        }
        // Committed frames after it, each intact against the frame before it: transactions
        // written after the damaged frame, which SQLite would drop. Those past the end its index
        // gives for this log (same salts) were never committed: a failed transaction's.
        let indexEnd = headerIsSound ? index.flatMap { committedFrames(index: $0, salts: Array(bytes[16..<24])) } : nil
        let end = min(frames, indexEnd ?? frames)
        var committed = 0
        for bigEndian in orders where committed == 0 {
            for frame in (firstDropped + 1)..<max(end, firstDropped + 1) where isCommit(frame) {
                if holds(frame, salts: expectedSalts, from: storedChecksum(frame - 1), bigEndian: bigEndian) {
                    committed += 1
                }
            }
        }
        guard committed > 0 else { return nil }
        let cut = headerIsSound ? offset(firstDropped) : 0
        let what = headerIsSound ? "frame \(firstDropped + 1) (byte \(cut)) fails its checksum" : "its header is damaged"
        return "\(what), and \(committed) committed transaction\(committed == 1 ? "" : "s") follow"
            + " (\(frames - firstDropped) of its \(frames) frames), which SQLite would drop without a word."
            + " Restore a backup of the data directory; or, only if the machine lost power (a write torn"
            + " then was never acknowledged), keep what comes before with `truncate -s \(cut) \(path)`"
    }

    /// The frames of the log whose salts are `salts` (as the log's header holds them) that
    /// SQLite had committed, by its index: the header it writes after each commit, in two
    /// copies, with a checksum of its own in this machine's byte order. Nil when the index is
    /// too short, being written, damaged, or of another log (the log restarted since).
    static func committedFrames(index: [UInt8], salts: [UInt8]) -> Int? {
        guard index.count >= 96, index[0..<48] == index[48..<96], index[12] == 1, Array(index[32..<40]) == salts else {
            return nil
        }
        func native(_ at: Int) -> UInt32 { index.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        let bigEndian = UInt32(1).bigEndian == 1
        let indexChecksum = index.withUnsafeBytes { checksum($0, 0..<40, from: (0, 0), bigEndian: bigEndian) }
        guard native(0) == version, indexChecksum == (native(40), native(44)) else {
            return nil
        }
        return Int(native(16))
    }

    /// Frames the log at `path` held past the last checkpoint by its index (`indexPath`, the
    /// `-shm` file SQLite keeps beside it) when the log itself is gone: SQLite would open the
    /// database as of that checkpoint, without them. Nil when the log is there, or the index
    /// is missing, unreadable or says every frame was copied into the database.
    ///
    /// The index is read as SQLite lays it out (two copies of its header, then the
    /// checkpoint's progress), in this machine's byte order. SQLite removes both files
    /// together when its last connection closes, after copying every frame.
    static func framesMissing(logAt path: String, indexAt indexPath: String) -> Int? {
        var status = stat()
        guard stat(path, &status) != 0, errno == ENOENT, let index = contents(of: indexPath), index.count >= 100 else {
            return nil
        }
        func native(_ at: Int) -> UInt32 { index.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        // Two identical copies of the header, initialised, of the version SQLite writes.
        guard index[0..<48] == index[48..<96], native(0) == version, index[12] == 1 else { return nil }
        let frames = Int(native(16)), copied = Int(native(96))
        return frames > copied ? frames - copied : nil
    }

    /// SQLite's checksum (walChecksumBytes): two running sums over pairs of 32-bit words.
    static func checksum(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, from start: (UInt32, UInt32), bigEndian: Bool)
        -> (UInt32, UInt32)
    {
        var (first, second) = start
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let a = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            let b = bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)
            first = first &+ (bigEndian ? a.bigEndian : a.littleEndian) &+ second
            second = second &+ (bigEndian ? b.bigEndian : b.littleEndian) &+ first
            at += 8
        }
        return (first, second)
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ at: Int, bigEndian: Bool) -> UInt32 {
        let value = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        return bigEndian ? value.bigEndian : value.littleEndian
    }

    /// `body` over the bytes of the file at `path`, mapped read-only for the call (valid only
    /// during it); nil when the file cannot be opened or mapped (missing: no log to check;
    /// unreadable: SQLite's own open reports it). An empty file is an empty buffer.
    private static func withMapped<R>(_ path: String, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        guard size > 0 else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, size) }
        return body(UnsafeRawBufferPointer(start: base, count: size))
    }

    /// The file's bytes; nil when it cannot be read (missing: no log to check; unreadable:
    /// SQLite's own open reports it).
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return filled == bytes.count ? bytes : Array(bytes[..<filled])
    }
}
