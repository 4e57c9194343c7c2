#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes from the system's cryptographically secure generator, as many as asked for in one
/// system call, for session ids and tokens.
///
/// `SystemRandomNumberGenerator` asks the kernel for eight bytes a call, so a new session (a
/// 16-byte id and a 32-byte token) cost six `getrandom` calls, most of what creating one spent
/// in the kernel beyond answering (docs/performance.md, item 84). `getentropy` (glibc 2.25,
/// musl, macOS) fills up to 256 bytes with one, from the same source, and blocks, as the
/// generator does, only until that source is first seeded at boot. Nothing is drawn ahead and
/// kept: a token is never in memory before it is made.
enum SecureRandom {
    /// `getentropy`'s most bytes a call.
    private static let chunk = 256

    /// Fills every byte of `buffer`.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var start = 0
        while start < buffer.count {
            let part = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<min(start + chunk, buffer.count)])
            if getentropy(part.baseAddress, part.count) != 0 { fillWithGenerator(part) }
            start += part.count
        }
    }

    /// Where the kernel has no `getrandom` (Linux before 3.17: ENOSYS), the standard library's
    /// generator still reads `/dev/urandom`. Eight bytes at a time, the last word cut to fit.
    static func fillWithGenerator(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        var start = 0
        while start < buffer.count {
            let word = generator.next() as UInt64
            let count = min(8, buffer.count - start)
            withUnsafeBytes(of: word) { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            }
            start += count
        }
    }
}
