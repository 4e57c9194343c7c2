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
            #expect(try ETag.revisions(in: ETag.value(for: revision), name: .ifMatch) == [revision])
        }
    }

    @Test("A weak tag matches its revision in If-None-Match and none in If-Match (RFC 9110 13.1.1-2)")
    func weakTags() throws {
        #expect(try ETag.revisions(in: #"W/"3", "4""#, name: .ifNoneMatch) == [3, 4])
        #expect(try ETag.revisions(in: #"W/"3", "4""#, name: .ifMatch) == [4])
        #expect(try ETag.revisions(in: #"W/"3""#, name: .ifMatch) == [])
    }

    @Test("A well-formed tag that is no revision matches nothing; what is no tag is refused (RFC 9110 8.8.3)")
    func foreignTags() throws {
        for header in [#""abc""#, #""007""#, #""+7""#, #""99999999999999999999""#, #""""#, #""a,b""#, #"W/"x""#] {
            #expect(try ETag.revisions(in: header, name: .ifMatch) == [], "\(header)")
            #expect(try ETag.revisions(in: header, name: .ifNoneMatch) == [], "\(header)")
        }
        #expect(try ETag.revisions(in: #""abc", "4",W/"5""#, name: .ifNoneMatch) == [4, 5])
        #expect(try ETag.revisions(in: #" "a,b" , 6 "#, name: .ifMatch) == [6])
        #expect(try ETag.revisions(in: " * ", name: .ifMatch) == nil)
        for header in ["yesterday", #""open"#, #""a b""#, #""3"x"#, "*, \"3\"", "007", "-1", #""3" "4""#] {
            #expect(throws: APIError.self, "\(header)") { try ETag.revisions(in: header, name: .ifMatch) }
        }
    }
}
