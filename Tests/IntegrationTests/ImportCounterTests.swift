import Foundation
import Testing

/// Import documents whose counters sit next to Int.max, against the real executable: refused
/// with 422, never a trap that takes the whole server down.
@Suite("Imports with counters at Int.max")
struct ImportCounterTests {
    /// A fresh session's export, as a dictionary to tamper with.
    static func exported(_ client: HTTPConnection) throws -> [String: Any] {
        let session = try client.createSession()
        return try client.get(session.route("export"), token: session.token).json()
    }

    /// Whether the server still answers, on a new connection.
    static func alive(_ port: Int) -> Bool {
        guard let client = try? HTTPConnection(port: UInt16(port)), let health = try? client.get("/healthz") else {
            return false
        }
        return health.status == 200
    }

    @Test("An import whose revision is Int.max is refused with 422, and the server lives on")
    func revisionAtIntMax() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        let port = try server.port()
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(port))
        var document = try Self.exported(client)
        document["revision"] = Int.max
        let answer = try? client.post("/v1/sessions/import", json: document)
        #expect(answer?.status == 422, "answer: \(answer?.text ?? "none: the connection closed")")
        #expect(Self.alive(port), "the server died: \(server.errorOutput.suffix(400))")
    }

    @Test("An import whose lastIssuedID is Int.max is refused with 422, not a session whose next push kills the server")
    func counterAtIntMax() throws {
        let server = try ServerProcess.start(arguments: ["--port", "0"])
        let port = try server.port()
        defer { _ = try? server.terminate() }
        let client = try HTTPConnection(port: UInt16(port))
        var document = try Self.exported(client)
        document["lastIssuedID"] = Int.max
        let imported = try client.post("/v1/sessions/import", json: document)
        #expect(imported.status == 422, "body: \(imported.text)")
        if imported.status == 201 {
            let copy = try #require(CreatedSession(answer: imported))
            let push = try? client.post("push", to: copy, json: ["screen": "next"])
            #expect(push?.status == 200, "the push got no answer")
        }
        #expect(Self.alive(port), "the server died: \(server.errorOutput.suffix(400))")
    }
}
