import Foundation
import Testing

/// A flag whose value was left out takes the next argument as its value: when that argument is
/// itself a flag, the flag was lost without a word (`--public-dir --storage=sqlite` served from
/// memory, `--data-dir --port 9000` made a directory named `--port`). It is refused instead.
@Suite("A flag as another flag's value")
struct SwallowedFlagTests {
    @Test(
        "A flag given where another flag's value belongs is refused at start, naming the flag without its value",
        arguments: [
            ["--public-dir", "--storage=sqlite"],
            ["--data-dir", "--port", "0"],
            ["--tls-key", "--help"],
        ])
    func flagAsValue(arguments: [String]) throws {
        guard let server = try ServerProcess.refusal(of: ["--port", "0"] + arguments) else { return }
        #expect(server.process.terminationStatus == 2)
        #expect(server.errorOutput.contains("\(arguments[0]) needs a value"), "stderr: \(server.errorOutput)")
    }

    /// A value that really begins with two dashes can still be given, joined to its flag.
    @Test("--flag=--value still gives such a value")
    func joinedValue() throws {
        // A public directory named `--page`, in the directory the server runs in.
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path + "/--page", withIntermediateDirectories: true)
        try Data("dashes".utf8).write(to: URL(fileURLWithPath: data.path + "/--page/index.html"))
        let server = try ServerProcess.start(arguments: ["--port", "0", "--public-dir=--page"], directory: data.path)
        let client = try HTTPConnection(port: UInt16(try server.port()))
        #expect(try client.get("/").text == "dashes")
        #expect(try server.terminate() == 0)
    }
}
