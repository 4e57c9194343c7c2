import Foundation
import Synchronization

/// Runs blocking client code on real threads at once, as many independent clients would.
enum Threads {
    /// Runs `body(index)` on `count` threads and waits for all of them (at most `limit`).
    static func run<Value: Sendable>(
        _ count: Int,
        limit: Duration = .seconds(30),
        _ body: @escaping @Sendable (Int) throws -> Value
    ) -> [Result<Value, any Error>] {
        let results = Results<Value>(count: count)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                results.set(index, Result { try body(index) })
                group.leave()
            }
            thread.start()
        }
        let seconds = Double(limit.components.seconds)
        if group.wait(timeout: .now() + seconds) == .timedOut {
            return [.failure(ClientError.timedOut(waitingFor: "\(count) threads"))]
        }
        return results.all
    }
}

/// The threads' results, filled in from any of them.
private final class Results<Value: Sendable>: Sendable {
    private let slots: Mutex<[Result<Value, any Error>?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ result: Result<Value, any Error>) {
        slots.withLock { $0[index] = result }
    }

    var all: [Result<Value, any Error>] {
        slots.withLock { $0.map { $0 ?? .failure(ClientError.timedOut(waitingFor: "a thread")) } }
    }
}
