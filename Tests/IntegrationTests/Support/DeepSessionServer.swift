import Foundation
import Testing

/// A server allowing `--max-presentation-depth 1000`, run under a 256 KiB `ulimit -s`, and a
/// session 1,000 sheets deep on it: what the stack tests share. Every path that walks a tree
/// recurses once per level, and the server's own threads must not take their stack from the
/// limit (a thread started without a size gets it).
struct DeepSessionServer {
    static let smallStack = ["prlimit", "--stack=262144"]
    static let arguments = ["--port", "0", "--max-presentation-depth", "1000"]

    let server: ServerProcess
    let client: HTTPConnection
    let session: CreatedSession

    /// `arguments` come after the depth's (storage, a data directory).
    init(_ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        server = try ServerProcess.start(arguments: Self.arguments + arguments, through: Self.smallStack)
        client = try HTTPConnection(port: UInt16(try server.port()))
        session = try client.createSession()
        try client.presentSheets(1000, on: session, sourceLocation: sourceLocation)
    }
}
