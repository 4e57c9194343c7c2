import Presentation
import Testing

@testable import PresentationAPI

@Suite("Event frame cache")
struct EventFrameCacheTests {
    /// One stream that includes a session of 3.6 MB, and tiny changes made one after another,
    /// kept 256 session messages of 3.6 MB each: 440 MB of one session's, held after the
    /// stream closed, where SECURITY.md bounds a session's memory at about 17 MiB.
    @Test("Large messages are kept up to a byte budget, not 256 of them, and the newest is always kept")
    func boundedByBytes() {
        let cache = EventFrameCache()
        let id = SessionID.random()
        let message = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for revision in 1...256 {
            _ = cache.sessionMessage(for: id, at: revision) { message }
        }
        #expect(cache.heldBytes <= EventFrameCache.defaultByteBudget)
        // The newest is kept, so that a session's other subscribers copy it rather than write it.
        var written = false
        _ = cache.sessionMessage(for: id, at: 256) {
            written = true
            return message
        }
        #expect(!written)
    }

    @Test("A message larger than the budget is still kept while it is the newest")
    func newestKeptWhateverItsSize() {
        let cache = EventFrameCache(capacity: 4, byteBudget: 1024)
        let id = SessionID.random()
        _ = cache.messages(for: id, after: 1, through: 2) { [UInt8](repeating: 1, count: 100) }
        _ = cache.messages(for: id, after: 2, through: 3) { [UInt8](repeating: 2, count: 4096) }
        #expect(cache.heldBytes == 4096, "the older message goes, the newest stays")
        var written = false
        _ = cache.messages(for: id, after: 2, through: 3) {
            written = true
            return []
        }
        #expect(!written)
    }
}
