#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--help`: the usage on standard output, and the exit status that says whether it got there.
enum Help {
    /// Writes the usage whole and exits 0; help that could not all be written (a full disk, a
    /// pipe closed early) is a failure to report, not a success: it exits 1 and says why.
    static func show() -> Never {
        var text = Options.usage
        let failure = text.withUTF8 { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        guard let failure else { exit(0) }
        Log.standardError("presentation-server: cannot write the help: \(String(cString: strerror(failure)))")
        exit(1)
    }
}
