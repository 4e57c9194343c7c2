import Foundation
import Testing

/// `--host`: like every other option, a value the server cannot use is refused when the
/// options are read (exit 2, the reason on stderr), before anything is opened or created.
@Suite("A bad --host")
struct HostOptionTests {
    @Test("A host that is not an address is refused like any bad value: exit 2, on stderr, nothing created")
    func notAnAddress() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ServerProcess.run([
            "--host", "example.invalid", "--port", "0", "--storage", "sqlite", "--data-dir", folder.path,
        ])
        #expect(run.status == 2, "exit status \(run.status)")
        #expect(run.errors.contains("--host example.invalid"), "stderr: \(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "a typo in --host created and locked a data directory")
    }

    @Test("A server that cannot listen says why on stderr too, as a storage failure does")
    func cannotListen() throws {
        let first = try ServerProcess.start(arguments: ["--port", "0"], accessLog: false)
        defer { _ = try? first.terminate() }
        let port = try first.port()
        let second = try ServerProcess.run(["--port", String(port)])
        #expect(second.status == 1)
        #expect(second.errors.contains("cannot listen on 127.0.0.1:\(port)"), "stderr: \(second.errors)")
    }
}
