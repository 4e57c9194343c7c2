import Foundation
import Testing

/// A start that fails for a reason of its own (no descriptor left for libmicrohttpd's epoll or
/// its threads' channels) was reported, with TLS on, as the certificate or key refused: any
/// errno but the three a bind sets was taken for GnuTLS's. An operator was sent to check a
/// certificate and key that were fine.
@Suite("A start failure with TLS on")
struct TLSStartFailureTests {
    @Test("Too few descriptors to start is reported as such, not as the certificate refused")
    func descriptorsExhausted() throws {
        let pair = try TLSTests.Certificate()
        defer { pair.remove() }
        // Eight: the three standard ones and a few more, fewer than libmicrohttpd's daemon needs.
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--threads", "2", "--tls-cert", pair.certificate, "--tls-key", pair.key],
            accessLog: false, through: ["prlimit", "--nofile=8"])
        #expect(try server.waitForExit() == 1)
        let errors = server.errorOutput
        #expect(!errors.contains("TLS certificate or private key was refused"), "\(errors)")
        #expect(errors.contains("Too many open files"), "\(errors)")
    }
}
