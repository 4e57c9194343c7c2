import Presentation
import Synchronization

/// Hands out predictable session ids and tokens, so store tests can name sessions exactly.
final class IDSequence: Sendable {
    private let counter = Mutex(0)

    func sessionID() -> SessionID {
        let number = counter.withLock { number in
            number += 1
            return number
        }
        let digits = String(number)
        return SessionID(rawValue: String(repeating: "A", count: 21 - digits.count) + digits + "A")!
    }

    static func id(_ number: Int) -> SessionID {
        let digits = String(number)
        return SessionID(rawValue: String(repeating: "A", count: 21 - digits.count) + digits + "A")!
    }

    static func store(limits: Limits = .default) -> InMemorySessionStore {
        let sequence = IDSequence()
        return InMemorySessionStore(limits: limits, makeID: { sequence.sessionID() }, makeToken: { Fixture.token })
    }
}

/// Collects what a watcher is told.
final class ChangeLog: Sendable {
    private let changes = Mutex<[SessionChange]>([])

    var all: [SessionChange] { changes.withLock { $0 } }

    func append(_ change: SessionChange) {
        changes.withLock { $0.append(change) }
    }
}

/// A failure of the caller's own, to show that `update` passes any error through.
struct Refusal: Error, Equatable {}

extension SessionChange {
    /// A revision made with `Fixture.token`, the token every store of these tests hands out.
    static func revised(_ revision: Int) -> SessionChange {
        .revised(revision, token: SessionTokenDigest(of: Fixture.token))
    }
}
