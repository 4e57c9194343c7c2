import Foundation
import MicroHTTP
import Presentation
import Testing

/// A document's times are read strictly (docs/api.md, "Export and import"): a date no calendar
/// has is refused, not moved to another day and imported under it.
@Suite("Importing times")
struct ImportDateTests {
    let harness = APIHarness()

    func importing(_ change: (inout [String: Any]) -> Void) throws -> HTTPResponse {
        let (id, token) = try harness.createSession()
        var document = try harness.send(.get, "/v1/sessions/\(id)/export", token: token).jsonObject()
        change(&document)
        let body = try JSONSerialization.data(withJSONObject: document)
        return harness.send(.post, "/v1/sessions/import", json: String(decoding: body, as: UTF8.self))
    }

    @Test(
        "A day past its month's end, or a second 60, is refused, naming the member",
        arguments: [
            "2026-02-29T10:00:00.000Z", "2026-02-31T10:00:00.000Z", "2026-04-31T10:00:00.000Z", "1900-02-29T10:00:00Z",
            // A second 60 was read as the next minute's 0, and exported so: what no export
            // holds (a Date has no leap second) is not taken for another time either.
            "2026-01-10T10:00:60.000Z", "2016-12-31T23:59:60Z",
        ])
    func dayPastTheMonth(time: String) throws {
        // createdAt stays before updatedAt, so only the day itself is wrong.
        let response = try importing { $0["createdAt"] = time }
        #expect(response.status == .unprocessableContent, "imported as: \(String(decoding: response.bodyBytes, as: UTF8.self))")
        guard response.status == .unprocessableContent else { return }
        #expect(try response.problemCode() == "invalid_field")
        #expect(try response.jsonObject()["pointer"] as? String == "/createdAt")
    }

    @Test("The last day of each month, a leap day among them, imports and exports as it was sent")
    func lastDays() throws {
        for time in ["2024-02-29T10:00:00.000Z", "2000-02-29T10:00:00.000Z", "2026-04-30T10:00:00.000Z", "2026-01-31T10:00:00.000Z"] {
            let response = try importing { $0["createdAt"] = time }
            #expect(response.status == .created, "\(time): \(String(decoding: response.bodyBytes, as: UTF8.self))")
            #expect(try response.jsonObject()["createdAt"] as? String == time)
        }
    }
}
