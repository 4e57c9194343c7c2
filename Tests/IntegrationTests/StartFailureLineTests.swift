import Foundation
import Testing

/// A start that fails on storage tells the person at the terminal why, in one line on stderr.
/// The data directory's path was echoed raw: `DATA_DIR=/data\r`, from an env file saved with
/// CRLF line ends, sent the rest of the line back over its start at a terminal, as a refused
/// setting did before it was shown escaped (RefusalLineTests).
@Suite("Start failure lines")
struct StartFailureLineTests {
    @Test("A data directory that cannot be made, its path holding a carriage return, is told in one line shown escaped")
    func storageFailureEscaped() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("start-failure-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        // A file where the data directory's parent should be: the directory cannot be made.
        let file = parent.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let environment = ["STORAGE": "sqlite", "DATA_DIR": file + "/data\r"]
        guard let server = try ServerProcess.refusal(of: ["--port", "0"], environment: environment) else { return }
        #expect(server.process.terminationStatus == 1)
        #expect(server.errorOutput.contains(#"/data\r"#), "stderr: \(server.errorOutput.debugDescription)")
        #expect(server.errorOutput.split(separator: "\n").count == 1, "stderr: \(server.errorOutput.debugDescription)")
        let carriageReturn = server.errorOutput.unicodeScalars.contains("\r")
        #expect(!carriageReturn, "stderr: \(server.errorOutput.debugDescription)")
    }
}
