import Foundation
import Testing

@testable import Presentation

@Suite("A page of the session listing")
struct ListingPageTests {
    @Test("The smallest elements are those a full sort puts first, in order, duplicates and all")
    func smallestMatchesSort() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let values = (0..<Int.random(in: 0...300, using: &generator)).map { _ in Int.random(in: 0..<100, using: &generator) }
            for count in [0, 1, 2, 7, values.count - 1, values.count, values.count + 5] where count >= 0 {
                #expect(values.smallest(count) == Array(values.sorted().prefix(count)), "\(count) of \(values)")
            }
        }
    }

    @Test("Pages walk every live session once, in id order, past expired ones however many come first")
    func pagesSkipExpired() throws {
        let clock = ManualClock()
        let store = InMemorySessionStore(limits: Limits(sessionTTL: 100, maxSessionTTL: 1_000), clock: { clock.now })
        var live: [String] = []
        for number in 0..<500 {
            // Two in five expire; the rest outlive the walk.
            let ttl = number % 5 < 2 ? 10 : 1_000
            let id = try store.create(root: Fixture.spec("home"), timeToLive: ttl, now: clock.now).session.id
            if ttl == 1_000 { live.append(id.rawValue) }
        }
        clock.advance(20)
        var walked: [String] = []
        var cursor: String?
        while true {
            let page = store.sessions(after: cursor, limit: 7)
            #expect(page.count <= 7)
            walked += page.map(\.id.rawValue)
            guard page.count == 7 else { break }
            cursor = page.last?.id.rawValue
        }
        #expect(walked == live.sorted())
    }
}
