import Foundation
import Synchronization
import Testing

@testable import SessionStorage

/// The thread behind the journal's writer and its sync thread: every item queued is processed
/// once, in the order it was queued, however the items fall into batches; the arrays batches
/// come in are reused, so this also holds them to that.
@Suite("Batch thread")
struct BatchThreadTests {
    @Test(
        "Items queued by several threads while batches run are each processed once, each thread's in order",
        .timeLimit(.minutes(1)))
    func everyItemOnceInOrder() throws {
        let producers = 4, perProducer = 5_000
        let thread = BatchThread<Int>()
        let seen = Mutex<(items: [Int], batches: Int, largest: Int)>(([], 0, 0))
        thread.start(name: "test-batches") { batch in
            seen.withLock { seen in
                seen.items += batch
                seen.batches += 1
                seen.largest = max(seen.largest, batch.count)
            }
            // Now and then slow, so that items pile up into batches of many sizes.
            if batch.count % 7 == 0 { Thread.sleep(forTimeInterval: 0.0005) }
        }
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<perProducer {
                #expect(thread.add(producer * perProducer + index))
            }
        }
        thread.stop()
        #expect(!thread.add(-1), "nothing is queued once stopped")

        let (items, batches, largest) = seen.withLock { $0 }
        #expect(items.count == producers * perProducer)
        #expect(Set(items).count == items.count, "no item twice")
        for producer in 0..<producers {
            let own = items.filter { $0 / perProducer == producer }
            #expect(own == Array(producer * perProducer..<(producer + 1) * perProducer), "producer \(producer)'s in order")
        }
        #expect(batches > 1 && largest > 1, "the items came in several batches, some of several items")
    }

    @Test("An item withdrawn before its batch is taken is never processed")
    func withdrawn() throws {
        let thread = BatchThread<Int>()
        // Not started: nothing is taken, so the withdrawal surely comes first.
        #expect(thread.add(1))
        #expect(thread.add(2))
        #expect(thread.withdraw { $0 == 1 })
        #expect(!thread.withdraw { $0 == 3 })
        #expect(thread.queued == 1)
        let processed = Mutex<[Int]>([])
        thread.start(name: "test-withdraw") { batch in processed.withLock { $0 += batch } }
        thread.stop()
        #expect(processed.withLock { $0 } == [2])
    }
}
