import Foundation
import Testing

/// A public directory the operator named but that is not one (a typo) served the API without
/// its page, with only an info line in the log; it is refused at start as any setting the
/// server cannot use. The default `./Public` may be missing: the API is served alone.
@Suite("The public directory setting")
struct PublicDirectoryOptionTests {
    @Test("A named public directory that does not exist, or is a file, is refused at start, named as given")
    func namedMissingRefused() throws {
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        let file = data.path + "/index.html"
        try #require(FileManager.default.createFile(atPath: file, contents: Data("<p>".utf8)))
        let cases: [(arguments: [String], environment: [String: String], named: String)] = [
            (["--public-dir", data.path + "/Pubic"], [:], "--public-dir"),
            (["--public-dir", file], [:], "--public-dir"),
            ([], ["PUBLIC_DIR": data.path + "/Pubic"], "PUBLIC_DIR"),
        ]
        for (arguments, environment, named) in cases {
            guard let server = try ServerProcess.refusal(of: ["--port", "0"] + arguments, environment: environment)
            else { continue }
            #expect(server.process.terminationStatus == 2)
            #expect(server.errorOutput.contains(named), "stderr: \(server.errorOutput)")
            #expect(server.errorOutput.split(separator: "\n").count == 1, "stderr: \(server.errorOutput)")
        }
    }

    @Test("Without the setting, a missing ./Public serves the API alone")
    func defaultMissingServesTheAPI() throws {
        let data = DataDirectory()
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        let server = try ServerProcess.start(arguments: ["--port", "0"], directory: data.path)
        let client = try HTTPConnection(port: UInt16(try server.port()))
        _ = try client.createSession()
        #expect(try client.get("/").status == 404)
        #expect(server.output.contains("no_public_directory"))
        #expect(try server.terminate() == 0)
    }
}
