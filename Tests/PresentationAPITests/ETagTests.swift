@testable import PresentationAPI
import Testing

@Suite("Entity tags")
struct ETagTests {
    /// The tag is spelled digit by digit; these are the widths where that could slip.
    @Test("A revision's tag is its decimal digits in quotes", arguments: [0, 1, 9, 10, 99, 100, 12_345, 9_999_999_999_999, 10_000_000_000_000, Int.max, -1, Int.min])
    func spelling(revision: Int) {
        #expect(ETag.value(for: revision) == "\"" + String(revision) + "\"")
    }

    @Test("A tag reads back as its revision")
    func roundTrip() throws {
        for revision in [0, 7, 1_000, Int.max] {
            #expect(try ETag.revisions(in: ETag.value(for: revision), name: "If-Match") == [revision])
        }
    }
}
