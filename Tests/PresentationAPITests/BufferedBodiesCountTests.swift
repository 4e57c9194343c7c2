import Testing

@testable import MicroHTTP

@Suite("Counting request bodies held at once")
struct BufferedBodiesCountTests {
    @Test("Bytes fit up to the limit exactly; past them nothing is counted, and refusals only once answered")
    func upToTheLimit() {
        let bodies = BufferedBodies(limit: 100)
        #expect(bodies.reserve(60))
        #expect(bodies.reserve(40))
        #expect(bodies.counts == (100, 0))
        #expect(!bodies.reserve(1))
        #expect(bodies.counts == (100, 0))
        bodies.countRefusal()
        #expect(bodies.counts == (100, 1))
        bodies.release(40)
        #expect(!bodies.reserve(41))
        #expect(bodies.reserve(40))
        bodies.release(100)
        #expect(bodies.counts == (0, 1))
    }

    @Test("Threads reserving at once never hold more than the limit, and give back all they took")
    func concurrentReservations() async {
        let bodies = BufferedBodies(limit: 1_000)
        let taken = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var kept = 0
                    for _ in 0..<10_000 {
                        if bodies.reserve(7) { kept += 7 }
                        #expect(bodies.counts.held <= 1_000 + 8 * 7)
                        if kept >= 70 {
                            bodies.release(kept)
                            kept = 0
                        }
                    }
                    return kept
                }
            }
            return await group.reduce(0, +)
        }
        bodies.release(taken)
        #expect(bodies.counts.held == 0)
    }
}
