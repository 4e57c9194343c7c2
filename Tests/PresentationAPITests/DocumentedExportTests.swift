import Foundation
import MicroHTTP
import Testing

/// docs/api.md shows an exported document as one a client may send back to import: it must
/// be one the import takes.
@Suite("The documented export")
struct DocumentedExportTests {
    /// The first JSON block of docs/api.md's "Export and import" section.
    static func example() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let section = try #require(text.range(of: "### Export and import"))
        let start = try #require(text.range(of: "```json\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test("The example document imports")
    func exampleImports() throws {
        let response = APIHarness().send(.post, "/v1/sessions/import", json: try Self.example())
        #expect(response.status == .created, "\(String(decoding: response.bodyBytes, as: UTF8.self))")
    }
}
